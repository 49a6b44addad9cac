from collections import deque


class Sequence:
    def __init__(self, sid: int, tokens: list[int]) -> None:
        self.sid = sid
        self.tokens = tokens
        self.block_ids: list[int] = []


class Scheduler:
    def __init__(self, block_size: int) -> None:
        self.block_size = block_size
        self.waiting: deque[Sequence] = deque()
        self.running: list[Sequence] = []

    def schedule(self) -> list[int]:
        scheduled = []
        while self.waiting:  # expect-not: HTD201
            seq = self.waiting.popleft()
            self.running.append(seq)
        for i in range(len(self.running)):  # expect-not: HTD201
            seq = self.running[i]
            scheduled.append(len(seq.tokens) // self.block_size)
        return scheduled

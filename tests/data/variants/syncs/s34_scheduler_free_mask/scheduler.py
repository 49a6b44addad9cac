import torch


class Scheduler:
    def __init__(self, num_blocks: int, device: str = "cuda") -> None:
        self.free_mask = torch.ones(num_blocks, dtype=torch.bool, device=device)
        self.free_list = list(range(num_blocks))

    def schedule(self, demand: list[int]) -> list[int]:
        num_free = int(self.free_mask.sum())  # expect: HTD202
        host_free = len(self.free_list)
        granted = []
        for d in demand:
            if d <= min(num_free, host_free):
                granted.append(d)
                num_free -= d
        return granted

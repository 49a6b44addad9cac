from .block_table import BlockTable


class KVManager:
    def __init__(self, table: BlockTable) -> None:
        self.table = table
        self.free: list[int] = []

    def schedule(self, finished: list[int]) -> None:
        for row in self.table.table[: len(finished)]:
            self.free.extend(row.tolist())  # expect: HTD201

    def free_finished(self, finished: list[int]) -> None:
        for i in finished:
            n = self.table.num_blocks[i]
            self.free.extend(self.table.table_cpu[i, :n].tolist())  # expect-not: HTD201, HTD202

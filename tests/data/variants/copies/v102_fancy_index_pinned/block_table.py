from __future__ import annotations

import torch


class BlockTable:
    def __init__(self, max_reqs: int, max_blocks: int, device: torch.device) -> None:
        self.device = device
        self.table_cpu = torch.zeros(max_reqs, max_blocks, dtype=torch.int32, pin_memory=True)
        self.table_gpu = torch.zeros(max_reqs, max_blocks, dtype=torch.int32, device=device)

    def commit(self, order: torch.Tensor, n: int) -> None:
        reordered = self.table_cpu[order]
        self.table_gpu[:n].copy_(reordered, non_blocking=True)  # expect: HTD102

    def commit_prefix(self, n: int) -> None:
        self.table_gpu[:n].copy_(self.table_cpu[:n], non_blocking=True)  # expect-not: HTD102, HTD103

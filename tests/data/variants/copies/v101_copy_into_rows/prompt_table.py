from __future__ import annotations

import torch


class PromptTable:
    def __init__(self, max_reqs: int, max_len: int, device: torch.device) -> None:
        self.table = torch.zeros(max_reqs, max_len, dtype=torch.int64, device=device)

    def fill(self, prompts: list[list[int]]) -> torch.Tensor:
        rows = [torch.tensor(p, dtype=torch.int64) for p in prompts]
        for i, row in enumerate(rows):
            self.table[i, : row.numel()].copy_(row, non_blocking=True)  # expect: HTD101; allow: HTD102
        return self.table

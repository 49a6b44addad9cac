from __future__ import annotations

import torch


class LoRABStager:
    def __init__(self, rank: int, out: int, device: torch.device) -> None:
        self.host_b = torch.empty(rank, out, pin_memory=True)
        self.dev_bt = torch.empty(out, rank, device=device)
        self.device = device

    def upload_transposed(self) -> None:
        self.dev_bt.copy_(self.host_b.t(), non_blocking=True)  # expect: HTD103

    def upload_keep_layout(self) -> torch.Tensor:
        return self.host_b.t().to(self.device, non_blocking=True)  # expect-not: HTD103

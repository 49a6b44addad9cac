from __future__ import annotations

import torch


class Offsets:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.device = device
        self.starts = torch.zeros(max_reqs, dtype=torch.int64, pin_memory=True)

    def shifted(self, n: int) -> torch.Tensor:
        return (self.starts[:n] + 1).to(self.device, non_blocking=True)  # expect: HTD102

    def plain(self, n: int) -> torch.Tensor:
        return self.starts[:n].to(self.device, non_blocking=True)  # expect-not: HTD102

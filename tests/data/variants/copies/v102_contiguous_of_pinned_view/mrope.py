from __future__ import annotations

import torch


class MRopePositions:
    def __init__(self, max_tokens: int, device: torch.device) -> None:
        self.cpu = torch.zeros(3, max_tokens + 1, dtype=torch.int64, pin_memory=True)
        self.gpu = torch.zeros(3, max_tokens + 1, dtype=torch.int64, device=device)
        self.device = device

    def to_device(self, n: int) -> torch.Tensor:
        # .contiguous() of the strided view is a fresh pageable tensor: still staged.
        return self.cpu[:, :n].contiguous().to(self.device, non_blocking=True)  # expect: HTD102

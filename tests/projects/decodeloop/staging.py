"""A host/device buffer pair kept for the engine's lifetime: the host half is pinned, so
per-step inputs are written there and copied without blocking."""

from __future__ import annotations

import torch


class StagedTensor:
    def __init__(self, n: int, dtype: torch.dtype, device: torch.device) -> None:
        self.host = torch.zeros(n, dtype=dtype, pin_memory=True)
        self.dev = torch.zeros(n, dtype=dtype, device=device)

    def upload(self, n: int) -> torch.Tensor:
        self.dev[:n].copy_(self.host[:n], non_blocking=True)  # expect-not: HTD102, HTD103, HTD105
        return self.dev[:n]

"""Pinned host staging for per-step inputs."""

from __future__ import annotations

import torch


def pinned_zeros(n: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.zeros(n, dtype=dtype, pin_memory=True)


class StagedTensor:
    """A pinned host tensor and its device twin."""

    def __init__(self, n: int, dtype: torch.dtype, device: torch.device) -> None:
        self.host = pinned_zeros(n, dtype)
        self.dev = torch.zeros(n, dtype=dtype, device=device)

    def upload(self, n: int) -> torch.Tensor:
        self.dev[:n].copy_(self.host[:n], non_blocking=True)  # expect-not: HTD102, HTD105
        return self.dev[:n]

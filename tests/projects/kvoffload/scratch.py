"""Scratch space for blocks being rearranged on the host: ordinary (pageable) memory."""

from __future__ import annotations

import torch


class Buffer:
    def __init__(self, numel: int, dtype: torch.dtype) -> None:
        self.data = torch.empty(numel, dtype=dtype)


def make_host(numel: int, dtype: torch.dtype = torch.float16) -> torch.Tensor:
    return torch.zeros(numel, dtype=dtype)


def wrap(t: torch.Tensor) -> torch.Tensor:
    """Whatever the caller passed: pinned or not, this module cannot say."""
    return t.view(-1)

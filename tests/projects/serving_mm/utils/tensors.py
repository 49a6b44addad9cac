from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F


def to_device_each(tensors: Sequence[torch.Tensor], device: torch.device) -> list[torch.Tensor]:
    """Moves each tensor to ``device``, one copy per tensor."""
    return [t.to(device, non_blocking=True) for t in tensors]  # expect: HTD101; allow: HTD102


def pad_to_multiple(x: torch.Tensor, multiple: int, dim: int = 0) -> torch.Tensor:
    remainder = x.shape[dim] % multiple
    if remainder == 0:
        return x
    pad = [0, 0] * (x.dim() - dim - 1) + [0, multiple - remainder]
    return F.pad(x, pad)

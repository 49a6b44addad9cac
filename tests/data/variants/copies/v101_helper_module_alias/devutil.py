from __future__ import annotations

import torch


def to_gpu(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    return t.to(device=device, non_blocking=True)

from __future__ import annotations

import torch


def positions_for_grid(t: int, h: int, w: int) -> torch.Tensor:
    return torch.arange(t * h * w).view(1, -1).expand(3, -1)

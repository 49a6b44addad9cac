from __future__ import annotations

import torch


def move_feature(feature: torch.Tensor, device: torch.device) -> torch.Tensor:
    return feature.to(device, non_blocking=True)

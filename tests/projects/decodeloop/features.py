"""Per-request multimodal features: moved to the device by a helper the runner calls."""

from __future__ import annotations

import torch


def move_features(items, device: torch.device) -> None:
    for item in items:
        if isinstance(item.feature, torch.Tensor):
            item.feature = item.feature.to(device, non_blocking=True)  # expect: HTD101


def stage_features(items, staging: torch.Tensor, device: torch.device) -> torch.Tensor:
    # one batched copy out of a pinned staging buffer: the fix
    n = 0
    for item in items:
        k = item.feature.shape[0]
        staging[n : n + k].copy_(item.feature)  # expect-not: HTD101
        n += k
    return staging[:n].to(device, non_blocking=True)  # expect-not: HTD102, HTD105

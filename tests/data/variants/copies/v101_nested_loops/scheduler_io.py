from __future__ import annotations

import torch

from v101_nested_loops.items import MMRequest


def stage_multimodal_inputs(batch: list[MMRequest], device: torch.device) -> None:
    for req in batch:
        for item in req.items:
            if item.feature is not None:
                item.feature = item.feature.to(device, non_blocking=True)  # expect: HTD101

from __future__ import annotations

import torch


def collate_pixels(images: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([im.flatten(0, 1) for im in images])

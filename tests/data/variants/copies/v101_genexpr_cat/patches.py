from __future__ import annotations

import torch


def split_image(image: torch.Tensor, tile: int) -> list[torch.Tensor]:
    return list(image.split(tile, dim=-1))

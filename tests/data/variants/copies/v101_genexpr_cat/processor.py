from __future__ import annotations

import torch
import torch.nn as nn

from v101_genexpr_cat.patches import split_image


class TiledVisionTower(nn.Module):
    def __init__(self, tower: nn.Module, tile: int) -> None:
        super().__init__()
        self.tower = tower
        self.tile = tile

    def forward(self, image: torch.Tensor, device: torch.device) -> torch.Tensor:
        tiles = split_image(image, self.tile)
        batch = torch.stack(tuple(t.cuda(non_blocking=True) for t in tiles))  # expect: HTD101
        return self.tower(batch)

    def forward_batched(self, images: list[torch.Tensor]) -> torch.Tensor:
        # Cast on the device the tower already runs on: no copy per tile.
        return self.tower(torch.stack([im.to(dtype=torch.float16) for im in images]))  # expect-not: HTD101, HTD104

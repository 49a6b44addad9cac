import torch
from torch import nn

from .vision_utils import patches_per_image


class VisionTower(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.merge = 4

    def forward(self, pixel_values: torch.Tensor, grid_thw: torch.Tensor) -> list[torch.Tensor]:
        embeds = self.proj(pixel_values)
        sizes = patches_per_image(grid_thw, self.merge)
        return list(embeds.split(sizes))

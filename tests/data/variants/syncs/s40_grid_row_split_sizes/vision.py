import torch
from torch import nn


class VisionEncoder(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.patch = nn.Linear(dim, dim)

    def forward(self, pixel_values: torch.Tensor, grid_thw: torch.Tensor) -> torch.Tensor:
        x = self.patch(pixel_values)
        cu = [0]
        for i in range(grid_thw.shape[0]):  # allow: HTD201
            cu.append(cu[-1] + grid_thw[i].prod())
        frames = []
        for i in range(len(grid_thw)):
            frames.append(x.new_zeros(1, x.shape[-1]).repeat(grid_thw[i, 0], 1))  # expect: HTD201
        return torch.cat([x, *frames]) + cu[-1]

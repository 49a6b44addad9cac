import numpy as np
import torch
from torch import nn

from .grids import build_grid


class VisionRope(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor, sizes: list[tuple[int, int, int]]) -> list[torch.Tensor]:
        grid = build_grid(sizes)
        out = []
        for t, h, w in grid:  # expect-not: HTD201
            out.append(torch.arange(h).repeat(t))
        for i in range(grid.shape[0]):  # expect-not: HTD201
            out.append(x.new_zeros(grid[i, 1], self.dim))
        for t, h, w in grid.tolist():  # expect-not: HTD201
            out.append(x[:1].repeat(t * h * w, 1))
        arr = np.asarray(sizes)
        for row in arr:  # expect-not: HTD201
            t, h, w = row
            out.append(torch.arange(h))
        for n in [s[1] for s in sizes]:  # expect-not: HTD201
            out.append(x[:1].expand(n, -1))
        return out

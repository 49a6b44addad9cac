"""The vision encoder: patches in, merged tokens out."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class VisionEncoder(nn.Module):
    def __init__(self, hidden: int, merge: int, device: torch.device) -> None:
        super().__init__()
        self.device = device
        self.dtype = torch.bfloat16
        self.merge = merge
        self.proj = nn.Linear(1176, hidden)
        self.blocks = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(4))

    def forward(self, pixel_values: torch.Tensor, grid_thw: torch.Tensor) -> torch.Tensor:
        x = self.proj(pixel_values.to(device=self.device, dtype=self.dtype, non_blocking=True))  # allow: HTD102
        sizes = grid_thw.prod(-1)
        cu_seqlens = F.pad(sizes.cumsum(0, dtype=torch.int32), (1, 0))
        max_seqlen = int(sizes.max())  # expect: HTD202
        for block in self.blocks:
            x = x + block(x) * (cu_seqlens[-1] > 0) * max_seqlen
        return x

    def split_sizes(self, grid_thw: torch.Tensor) -> list[int]:
        # One vectorised product and one read of all the rows.
        return (grid_thw.prod(-1) // self.merge**2).tolist()  # expect-not: HTD201; allow: HTD202

    def split_sizes_per_image(self, grid_thw: torch.Tensor) -> list[int]:
        return [(grid.prod() // self.merge**2).item() for grid in grid_thw]  # expect: HTD201

    def split_sizes_as_tensor(self, grid_thw: torch.Tensor) -> list[int]:
        sizes = []
        for i in range(grid_thw.shape[0]):
            sizes.append(int(torch.as_tensor(grid_thw[i], dtype=torch.long).prod()) // self.merge**2)  # expect: HTD201
        return sizes

import torch
from torch import nn


class RotaryIds(nn.Module):
    def __init__(self, merge: int) -> None:
        super().__init__()
        self.merge = merge

    def forward(self, grid_thw: torch.Tensor) -> torch.Tensor:
        pos = []
        for g in grid_thw:
            t, h, w = g[0], g[1], g[2]
            hpos = torch.arange(h).unsqueeze(1).expand(-1, w)  # expect: HTD201
            pos.append(hpos.flatten().repeat(t))  # expect: HTD201
        return torch.cat(pos)

import torch
from torch import nn


class PatchMerger(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.mlp = nn.Linear(hidden, hidden)

    def forward(self, x, grid_thw):
        out = []
        offset = 0
        for row in grid_thw:  # expect: HTD201
            n = row.prod().item()
            out.append(self.mlp(x[offset : offset + n]).mean(0))
            offset += n
        return torch.stack(out)

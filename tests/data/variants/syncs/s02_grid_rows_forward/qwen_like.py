import torch
from torch import nn


class PatchMerger(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.mlp = nn.Linear(hidden, hidden)

    def forward(self, x, grid_thw):
        out = []
        offset = 0
        for row in grid_thw:
            n = row.prod().item()  # expect: HTD201
            out.append(self.mlp(x[offset : offset + n]).mean(0))
            offset += n
        return torch.stack(out)

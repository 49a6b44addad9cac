import torch
from torch import nn

from .batch import MMBatch


class VisionEncoder(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, pixels: torch.Tensor, batch: MMBatch) -> list[torch.Tensor]:
        x = self.proj(pixels)
        sizes = [int(torch.prod(g)) for g in batch.grid_thw]  # expect: HTD201
        host_sizes = [int(torch.prod(g)) for g in batch.grid_thw_cpu]  # expect-not: HTD201
        return list(x.split(sizes)) + list(x.split(host_sizes))

import torch
from torch import nn

from .norm import SafeRMSNorm


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = SafeRMSNorm(dim)
        self.mlp = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.mlp(self.norm(x))

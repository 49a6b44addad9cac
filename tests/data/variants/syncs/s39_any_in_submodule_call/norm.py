import torch
from torch import nn


class SafeRMSNorm(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        var = x.pow(2).mean(-1, keepdim=True)
        if (var == 0).any():  # expect: HTD202
            var = var.clamp_min(1e-6)
        return x * torch.rsqrt(var) * self.weight

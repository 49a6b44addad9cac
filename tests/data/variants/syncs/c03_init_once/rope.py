import torch
from torch import nn


class RotaryEmbedding(nn.Module):
    def __init__(self, dim: int, max_pos: int, device: torch.device) -> None:
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2, device=device).float() / dim))
        self.cache = torch.outer(torch.arange(max_pos, device=device).float(), inv)
        self.sections = [int(s) for s in torch.tensor([16, 24, 24], device=device)]  # expect-not: HTD201
        for i in range(self.cache.shape[0]):
            if self.cache[i].abs().max().item() > 1e6:  # expect-not: HTD201
                raise ValueError("overflow")
        self.max_val = self.cache.max().item()  # expect-not: HTD202

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        return self.cache[positions]

import torch
from torch import nn


class Drafter(nn.Module):
    def __init__(self, dim: int, vocab: int) -> None:
        super().__init__()
        self.head = nn.Linear(dim, vocab)

    def propose(self, hidden: torch.Tensor, k: int) -> torch.Tensor:
        return self.head(hidden).topk(k, dim=-1).indices

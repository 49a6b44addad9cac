import torch
from torch import nn


class PrefixAttention(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.q = nn.Linear(dim, dim)

    def forward(self, hidden: torch.Tensor, is_prefill: torch.Tensor) -> torch.Tensor:
        q = self.q(hidden)
        prefill_idx = is_prefill.nonzero().squeeze(-1)  # expect: HTD202
        q[prefill_idx] = q[prefill_idx] * 0.5
        return q

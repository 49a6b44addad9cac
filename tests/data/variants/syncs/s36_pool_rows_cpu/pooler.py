import torch
from torch import nn


class LastTokenPooler(nn.Module):
    def forward(self, hidden: torch.Tensor, seq_ends: list[int]) -> list[torch.Tensor]:
        outs = []
        for i, end in enumerate(seq_ends):
            outs.append(hidden[end].cpu())  # expect: HTD201
        return outs

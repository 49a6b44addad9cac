import torch
from torch import nn


class SparseMoE(nn.Module):
    def __init__(self, dim: int, num_experts: int, top_k: int) -> None:
        super().__init__()
        self.gate = nn.Linear(dim, num_experts)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_experts))
        self.num_experts = num_experts
        self.top_k = top_k

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        weights, topk_ids = torch.topk(self.gate(hidden).softmax(-1), self.top_k)
        order = topk_ids.flatten().argsort()
        counts = torch.bincount(topk_ids.flatten(), minlength=self.num_experts)  # expect: HTD202
        out = torch.zeros_like(hidden)
        start = 0
        for e in range(self.num_experts):
            n = counts[e].item()  # expect: HTD201
            if n == 0:
                continue
            rows = order[start : start + n] // self.top_k
            out[rows] += self.experts[e](hidden[rows])
            start += n
        return out

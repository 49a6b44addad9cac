"""A mixture-of-experts layer."""

from __future__ import annotations

import torch
import torch.nn as nn


class SparseMoE(nn.Module):
    def __init__(self, hidden: int, num_experts: int, top_k: int) -> None:
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.gate = nn.Linear(hidden, num_experts, bias=False)
        self.experts = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(num_experts))

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        weights, topk_ids = torch.topk(self.gate(hidden).softmax(dim=-1), self.top_k)
        flat_ids = topk_ids.flatten()
        expert_counts = torch.bincount(flat_ids, minlength=self.num_experts)  # expect: HTD202
        counts = expert_counts.tolist()  # expect: HTD202
        order = flat_ids.argsort()
        # Integer repeats: the output length is known without reading the device.
        tokens = hidden.repeat_interleave(self.top_k, dim=0)[order]  # expect-not: HTD202
        chunks = tokens.split(counts)
        out = torch.cat([expert(chunk) for expert, chunk in zip(self.experts, chunks)])
        return (out[order.argsort()].view(-1, self.top_k, hidden.shape[-1]) * weights.unsqueeze(-1)).sum(1)

    def forward_dense_loop(self, hidden: torch.Tensor) -> torch.Tensor:
        weights, topk_ids = torch.topk(self.gate(hidden).softmax(dim=-1), self.top_k)
        out = torch.zeros_like(hidden)
        for e, expert in enumerate(self.experts):
            token_idx, slot = torch.where(topk_ids == e)  # expect: HTD202
            out.index_add_(0, token_idx, expert(hidden[token_idx]) * weights[token_idx, slot, None])
        return out

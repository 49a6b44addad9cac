"""Sampling: temperatures per request, a penalty table, top-k."""

from __future__ import annotations

import torch
import torch.nn as nn

PENALIZED = [13, 198, 50256]


class Sampler(nn.Module):
    def __init__(self, vocab: int, device: torch.device) -> None:
        super().__init__()
        # run once: a module-level table made into a buffer at construction
        self.register_buffer("penalized", torch.tensor(PENALIZED, device=device))  # expect-not: HTD106, HTD107
        self.neg_inf = torch.full((), float("-inf"), device=device)  # expect-not: HTD107

    def forward(self, logits: torch.Tensor, requests) -> torch.Tensor:
        temps = [r.temperature for r in requests]
        t = torch.tensor(temps, dtype=logits.dtype, device=logits.device)  # expect: HTD106
        # host-side bookkeeping: CPU only, no copy
        counts = torch.tensor([len(r.output_ids) for r in requests])  # expect-not: HTD106
        mask = torch.isin(torch.arange(logits.shape[-1], device=logits.device), self.penalized)
        logits = logits.masked_fill(mask, -1e4)
        table = torch.tensor(PENALIZED, device=logits.device)  # expect: HTD107
        floor = torch.tensor(0.0, device=logits.device)  # expect: HTD107
        scaled = logits / t.unsqueeze(-1).clamp(min=1e-5)
        del counts, table
        return torch.maximum(scaled, floor)

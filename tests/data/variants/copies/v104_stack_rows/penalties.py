from __future__ import annotations

import torch


class PenaltyBuilder:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def output_counts(self, outputs: list[list[int]], vocab: int) -> torch.Tensor:
        rows = [torch.bincount(torch.tensor(o, dtype=torch.int64), minlength=vocab) for o in outputs]
        return torch.stack(rows).to(self.device)  # expect: HTD104

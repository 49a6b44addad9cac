from __future__ import annotations

import torch

from v106_helper_returns_list.bookkeeping import cumulative_lengths


class PrefillMeta:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def cu_seqlens(self, lengths: list[int]) -> torch.Tensor:
        return torch.tensor(cumulative_lengths(lengths), dtype=torch.int32, device=self.device)  # expect: HTD106

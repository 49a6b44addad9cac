from __future__ import annotations

import numpy as np
import torch


class AllowedTokenMask:
    def __init__(self, vocab: int, device: torch.device) -> None:
        self.vocab = vocab
        self.device = device

    def mask(self, allowed: list[int]) -> torch.Tensor:
        m = np.zeros(self.vocab, dtype=np.bool_)
        m[allowed] = True
        return torch.as_tensor(m, device=self.device)  # expect: HTD106

from __future__ import annotations

import numpy as np
import torch


def bias_rows(bias: dict[int, float], vocab: int) -> np.ndarray:
    row = np.zeros(vocab, dtype=np.float32)
    for tok, b in bias.items():
        row[tok] = b
    return row


class LogitBias:
    def apply(self, logits: torch.Tensor, bias: dict[int, float]) -> torch.Tensor:
        row = torch.as_tensor(bias_rows(bias, logits.shape[-1])).cuda(non_blocking=True)  # expect: HTD102
        return logits + row

from __future__ import annotations

import numpy as np
import torch


class PositionBuilder:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def build(self, seq_starts: torch.Tensor, lengths: list[int]) -> torch.Tensor:
        starts = seq_starts.numpy()
        positions = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, lengths)])
        out = torch.from_numpy(positions)
        return out.to(self.device, non_blocking=True)  # expect: HTD102

from __future__ import annotations

import numpy as np
import torch


class MelBatcher:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def batch(self, mels: list[np.ndarray]) -> torch.Tensor:
        return torch.stack([torch.from_numpy(m).to(self.device) for m in mels])  # expect: HTD101

    def batch_host(self, mels: list[np.ndarray]) -> torch.Tensor:
        return torch.stack([torch.from_numpy(m) for m in mels])  # expect-not: HTD101, HTD104

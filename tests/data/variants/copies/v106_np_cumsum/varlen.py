from __future__ import annotations

import numpy as np
import torch


class VarlenMeta:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def forward_meta(self, lens: list[int]) -> torch.Tensor:
        return torch.as_tensor(np.cumsum([0, *lens]), dtype=torch.int32, device=self.device)  # expect: HTD106

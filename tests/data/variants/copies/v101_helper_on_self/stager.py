from __future__ import annotations

import torch


class InputStager:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def stage(self, t: torch.Tensor) -> torch.Tensor:
        return t.to(self.device, non_blocking=True)

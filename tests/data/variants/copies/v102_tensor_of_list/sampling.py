from __future__ import annotations

import torch


class SamplingParamsBatch:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def temperatures(self, temps: list[float]) -> torch.Tensor:
        return torch.tensor(temps, dtype=torch.float32).to(self.device, non_blocking=True)  # expect: HTD102

    def temperatures_pinned(self, temps: list[float]) -> torch.Tensor:
        t = torch.tensor(temps, dtype=torch.float32, pin_memory=True)
        return t.to(self.device, non_blocking=True)  # expect-not: HTD102

from __future__ import annotations

import torch


class Positions:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def _per_request(self, lens: list[int]) -> list[torch.Tensor]:
        return [torch.arange(n) for n in lens]

    def forward(self, lens: list[int]) -> torch.Tensor:
        return torch.cat(self._per_request(lens)).to(self.device, non_blocking=True)  # expect: HTD104

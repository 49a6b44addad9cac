from __future__ import annotations

import torch


class AcceptTracker:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def step(self, accepted: torch.Tensor) -> torch.Tensor:
        counts = accepted.sum(-1).tolist()
        return torch.tensor(counts, device=self.device)  # expect: HTD106

from __future__ import annotations

import torch


class DraftVerifier:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.accepted = torch.zeros(256, dtype=torch.int64, device=device)

    def accepted_counts(self, n: int) -> torch.Tensor:
        return self.accepted[:n].to(self.device, non_blocking=True)  # expect-not: HTD102, HTD103

    def draft_probs(self, logits: torch.Tensor) -> torch.Tensor:
        probs = logits.softmax(-1)
        return probs.to(self.device, non_blocking=True)  # expect-not: HTD102

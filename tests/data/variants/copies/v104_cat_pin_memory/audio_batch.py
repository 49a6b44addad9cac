from __future__ import annotations

import torch


class AudioBatcher:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def batch(self, clips: list[torch.Tensor]) -> torch.Tensor:
        return torch.cat(clips).pin_memory().to(self.device, non_blocking=True)  # expect: HTD104

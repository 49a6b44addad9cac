from __future__ import annotations

from collections import deque

import torch


class PrefetchQueue:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.pending: deque[torch.Tensor] = deque()

    def drain(self) -> list[torch.Tensor]:
        ready = []
        while self.pending:
            chunk = self.pending.popleft()
            ready.append(chunk.to(self.device, non_blocking=True))  # expect: HTD101
        return ready

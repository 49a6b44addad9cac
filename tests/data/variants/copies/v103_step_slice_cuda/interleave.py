from __future__ import annotations

import torch


class Interleaved:
    def __init__(self, n: int) -> None:
        self.host = torch.zeros(2 * n, dtype=torch.float32, pin_memory=True)

    def evens(self) -> torch.Tensor:
        return self.host[::2].cuda(non_blocking=True)  # expect: HTD103

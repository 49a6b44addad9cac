from __future__ import annotations

import torch


class StagingBuffer:
    def __init__(self, rows: int, cols: int, device: torch.device, pin_memory: bool) -> None:
        self.cpu = torch.zeros(rows, cols, dtype=torch.int32, pin_memory=pin_memory)
        self.gpu = torch.zeros(rows, cols, dtype=torch.int32, device=device)

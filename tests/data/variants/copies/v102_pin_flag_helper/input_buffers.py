from __future__ import annotations

import torch

from v102_pin_flag_helper.platform import is_pin_memory_available


class InputBuffers:
    def __init__(self, max_tokens: int, device: torch.device) -> None:
        self.device = device
        self.positions_cpu = torch.zeros(max_tokens, dtype=torch.int64, pin_memory=is_pin_memory_available())
        self.positions = torch.zeros(max_tokens, dtype=torch.int64, device=device)

    def copy_positions(self, n: int) -> None:
        self.positions[:n].copy_(self.positions_cpu[:n], non_blocking=True)  # expect-not: HTD102, HTD103

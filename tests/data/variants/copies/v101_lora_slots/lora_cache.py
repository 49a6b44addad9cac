from __future__ import annotations

import torch


class HostLoRACache:
    def __init__(self, num_adapters: int, rank: int, hidden: int) -> None:
        self.lora_a = torch.empty(num_adapters, rank, hidden, pin_memory=True)

from __future__ import annotations

import torch

from v101_lora_slots.lora_cache import HostLoRACache


class LoRAManager:
    def __init__(self, slots: int, rank: int, hidden: int, device: torch.device) -> None:
        self.host = HostLoRACache(64, rank, hidden)
        self.lora_a_gpu = torch.zeros(slots, rank, hidden, device=device)

    def activate(self, adapter_ids: list[int]) -> None:
        for slot, adapter_id in enumerate(adapter_ids):
            self.lora_a_gpu[slot].copy_(self.host.lora_a[adapter_id], non_blocking=True)  # expect: HTD101

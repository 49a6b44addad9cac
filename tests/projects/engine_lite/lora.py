"""LoRA adapters: loaded once, their per-request indices staged per step."""

from __future__ import annotations

import torch


class LoRAManager:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.adapters: dict[int, torch.Tensor] = {}

    def load_adapter(self, lora_id: int, weights: list[torch.Tensor]) -> None:
        # Run once per adapter: moving each weight is fine.
        self.adapters[lora_id] = torch.stack([w.to(self.device) for w in weights])  # expect-not: HTD101

    def set_active_loras(self, lora_ids: list[int], token_counts: list[int]) -> torch.Tensor:
        # Per step: one index per token, built from Python lists straight on the device.
        mapping = [lid for lid, n in zip(lora_ids, token_counts) for _ in range(n)]
        return torch.tensor(mapping, dtype=torch.long, device=self.device)  # expect: HTD106

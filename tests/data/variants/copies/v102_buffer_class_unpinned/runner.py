from __future__ import annotations

import torch

from v102_buffer_class_unpinned.staging import HostStaging


class StepRunner:
    def __init__(self, max_tokens: int, device: torch.device) -> None:
        self.device = device
        self.staging = HostStaging(max_tokens)

    def execute_model(self, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        ids = self.staging.token_ids[:n].to(self.device, non_blocking=True)  # expect: HTD102
        slots = self.staging.slot_mapping[:n].to(self.device, non_blocking=True)  # expect-not: HTD102, HTD103
        return ids, slots

from __future__ import annotations

import torch


class HostStaging:
    """Host-side staging for the step's inputs (allocated once)."""

    def __init__(self, max_tokens: int) -> None:
        self.token_ids = torch.empty(max_tokens, dtype=torch.int64)
        self.slot_mapping = torch.empty(max_tokens, dtype=torch.int64, pin_memory=True)

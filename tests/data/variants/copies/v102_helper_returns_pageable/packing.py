from __future__ import annotations

import torch


def pack_slot_mapping(slots: list[int]) -> torch.Tensor:
    return torch.tensor(slots, dtype=torch.int64)


def pack_slot_mapping_pinned(slots: list[int]) -> torch.Tensor:
    return torch.tensor(slots, dtype=torch.int64).pin_memory()

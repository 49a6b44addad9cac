from __future__ import annotations

import torch

from v102_helper_returns_pageable import packing


class AttnMetadataBuilder:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def build(self, slots: list[int]) -> torch.Tensor:
        return packing.pack_slot_mapping(slots).to(self.device, non_blocking=True)  # expect: HTD102

    def build_pinned(self, slots: list[int]) -> torch.Tensor:
        return packing.pack_slot_mapping_pinned(slots).to(self.device, non_blocking=True)  # expect-not: HTD102

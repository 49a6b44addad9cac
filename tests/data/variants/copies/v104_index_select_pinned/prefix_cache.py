from __future__ import annotations

import torch


class HostPrefixCache:
    def __init__(self, num_blocks: int, block_numel: int, device: torch.device) -> None:
        self.host_blocks = torch.empty(num_blocks, block_numel, pin_memory=True)
        self.device = device

    def fetch(self, block_ids: torch.Tensor) -> torch.Tensor:
        return self.host_blocks.index_select(0, block_ids).to(self.device, non_blocking=True)  # expect: HTD104

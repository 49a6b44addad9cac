from __future__ import annotations

import torch


class SwapSpace:
    def __init__(self, num_blocks: int, block_numel: int, device: torch.device) -> None:
        self.cpu_cache = torch.zeros(num_blocks, block_numel, pin_memory=True)
        self.gpu_cache = torch.zeros(num_blocks, block_numel, device=device)

    def swap_in(self, block_mapping: dict[int, int]) -> None:
        for src, dst in block_mapping.items():
            self.gpu_cache[dst].copy_(self.cpu_cache[src], non_blocking=True)  # expect: HTD101

    def swap_out(self, block_mapping: dict[int, int]) -> None:
        for src, dst in block_mapping.items():
            self.cpu_cache[dst].copy_(self.gpu_cache[src], non_blocking=True)  # expect-not: HTD101

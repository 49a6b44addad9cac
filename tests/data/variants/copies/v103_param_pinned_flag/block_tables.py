from __future__ import annotations

import torch

from v103_param_pinned_flag.buffers import StagingBuffer


class MultiGroupBlockTable:
    def __init__(self, max_reqs: int, max_blocks: int, device: torch.device) -> None:
        self.block_table = StagingBuffer(max_reqs, max_blocks, device, pin_memory=True)

    def commit(self, num_reqs: int, max_used: int) -> None:
        self.block_table.gpu[:num_reqs, :max_used].copy_(self.block_table.cpu[:num_reqs, :max_used], non_blocking=True)  # expect: HTD103
        self.block_table.gpu[:num_reqs].copy_(self.block_table.cpu[:num_reqs], non_blocking=True)  # expect-not: HTD102, HTD103

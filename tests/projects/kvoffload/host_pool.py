"""The host pool: pinned memory, allocated once, that blocks are swapped out to."""

from __future__ import annotations

import torch

# Staging for block tables, shared by the whole process.
TABLE_STAGING = torch.empty(4096, dtype=torch.int32, pin_memory=True)


class Buffer:
    """A pinned host buffer of ``num_blocks`` KV blocks, laid out (layers, blocks, block_bytes)."""

    def __init__(self, num_layers: int, num_blocks: int, block_numel: int, dtype: torch.dtype) -> None:
        self.data = torch.empty((num_layers, num_blocks, block_numel), dtype=dtype, pin_memory=True)
        self.num_blocks = num_blocks


def make_staging(numel: int, dtype: torch.dtype = torch.float16) -> torch.Tensor:
    return torch.empty(numel, dtype=dtype, pin_memory=True)

from __future__ import annotations

import torch


def allocate_host_pool(num_blocks: int, block_shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    return torch.zeros((num_blocks, *block_shape), dtype=dtype, pin_memory=True)

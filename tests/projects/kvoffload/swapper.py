"""Swaps KV blocks between the device cache and the host pool."""

from __future__ import annotations

import torch

import kvoffload.scratch as sc
from kvoffload import Buffer, make_staging
from kvoffload.host_pool import TABLE_STAGING


class BlockSwapper:
    def __init__(self, num_layers: int, num_host_blocks: int, block_numel: int, device: torch.device) -> None:
        self.device = device
        self.host = Buffer(num_layers, num_host_blocks, block_numel, torch.float16)
        self.scratch = sc.Buffer(num_host_blocks * block_numel, torch.float16)
        self.block_numel = block_numel
        self.staging: torch.Tensor | None = None

    def allocate(self, max_blocks: int) -> None:
        # Called once, after the cache is sized.
        self.staging = make_staging(max_blocks * self.block_numel)

    def swap_in_layer(self, layer_cache: torch.Tensor, layer: int, n: int) -> None:
        """Blocks 0..n of one layer: one dense block of pinned memory."""
        layer_cache[:n].copy_(self.host.data[layer, :n], non_blocking=True)  # expect-not: HTD102, HTD103

    def swap_in_all_layers(self, cache: torch.Tensor, n: int) -> None:
        """Blocks 0..n of every layer: a strided view (layers are num_blocks apart)."""
        cache[:, :n].copy_(self.host.data[:, :n], non_blocking=True)  # expect: HTD103

    def swap_in_from_scratch(self, n: int) -> torch.Tensor:
        return self.scratch.data[:n].to(self.device, non_blocking=True)  # expect: HTD102

    def swap_in_staged(self, n: int) -> torch.Tensor:
        assert self.staging is not None
        return self.staging[:n].to(self.device, non_blocking=True)  # expect-not: HTD102

    def upload_block_table(self, table: list[int]) -> torch.Tensor:
        n = len(table)
        TABLE_STAGING[:n].copy_(torch.tensor(table, dtype=torch.int32))
        return TABLE_STAGING[:n].to(self.device)  # expect: HTD105

    def upload_slots(self, slots: list[int]) -> torch.Tensor:
        host = sc.make_host(len(slots), dtype=torch.int64)
        host.copy_(torch.tensor(slots, dtype=torch.int64))
        return host.to(self.device, non_blocking=True)  # expect: HTD102

    def upload_given(self, values: torch.Tensor) -> torch.Tensor:
        # Pinned or not depends on the caller: unknown, so no finding.
        return sc.wrap(values).to(self.device, non_blocking=True)  # expect-not: HTD102

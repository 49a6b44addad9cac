"""Block tables: which KV-cache blocks each request of the batch owns."""

from __future__ import annotations

import numpy as np
import torch

from servekit.utils.paired import paired_zeros


class BlockTable:
    """Written on the host (the numpy view of the pinned half), copied once per step."""

    def __init__(self, max_num_reqs: int, max_num_blocks: int, max_num_tokens: int, block_size: int, device: torch.device) -> None:
        self.block_size = block_size
        self.table = paired_zeros(max_num_reqs, max_num_blocks, dtype=torch.int32, device=device)
        self.num_blocks = np.zeros(max_num_reqs, dtype=np.int32)
        self.slot_mapping = paired_zeros(max_num_tokens, dtype=torch.int64, device=device)

    def append_row(self, block_ids: list[int], row: int) -> None:
        start = int(self.num_blocks[row])
        self.table.np[row, start : start + len(block_ids)] = block_ids  # expect-not: HTD101, HTD202
        self.num_blocks[row] += len(block_ids)

    def compute_slot_mapping(self, req_indices: np.ndarray, positions: np.ndarray) -> None:
        # Host-side numpy math: no device tensor is read.
        block_numbers = self.table.np.ravel()[req_indices * self.table.np.shape[1] + positions // self.block_size]
        n = positions.shape[0]
        np.add(block_numbers * self.block_size, positions % self.block_size, out=self.slot_mapping.np[:n])  # expect-not: HTD202

    def commit(self, num_reqs: int, num_tokens: int) -> None:
        self.table.gpu[:num_reqs].copy_(self.table.cpu[:num_reqs], non_blocking=True)  # expect-not: HTD102, HTD103
        self.slot_mapping.copy_prefix(num_tokens)

    def commit_used_columns(self, num_reqs: int, max_blocks: int) -> None:
        # Only the columns in use: a strided view of the pinned half.
        self.table.gpu[:num_reqs, :max_blocks].copy_(self.table.cpu[:num_reqs, :max_blocks], non_blocking=True)  # expect: HTD103


class DeviceBlockTable:
    """A block table kept on the device only, written per request from the scheduler's lists."""

    def __init__(self, max_num_reqs: int, max_num_blocks: int, device: torch.device) -> None:
        self.device = device
        self.block_table = torch.zeros(max_num_reqs, max_num_blocks, dtype=torch.int32, device=device)

    def add_rows(self, rows: list[list[int]]) -> None:
        for i, blocks in enumerate(rows):
            self.block_table[i, : len(blocks)] = torch.tensor(blocks, dtype=torch.int32)  # expect: HTD101

    def set_padded_rows(self, padded_rows: list[list[int]]) -> None:
        for i, blocks in enumerate(padded_rows):
            self.block_table[i] = blocks  # expect: HTD101

    def set_rows_batched(self, padded_rows: list[list[int]]) -> None:
        # One copy for the whole table, through pinned memory.
        rows = torch.tensor(padded_rows, dtype=torch.int32, pin_memory=True)
        self.block_table[: rows.shape[0]].copy_(rows, non_blocking=True)  # expect-not: HTD101, HTD102

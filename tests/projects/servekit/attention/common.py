"""What the worker hands every attention metadata builder, once per step."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class CommonAttentionMetadata:
    query_start_loc: torch.Tensor  # (num_reqs + 1,) on the device
    query_start_loc_cpu: torch.Tensor  # the same, on the host
    seq_lens: torch.Tensor  # (num_reqs,) on the device
    seq_lens_cpu: torch.Tensor  # the same, on the host
    num_reqs: int
    num_actual_tokens: int
    max_query_len: int
    block_table: torch.Tensor
    slot_mapping: torch.Tensor

"""Attention metadata: built once per step from the scheduler's Python bookkeeping."""

from __future__ import annotations

from dataclasses import dataclass

import torch

# Token ids whose logits are never masked.
ALWAYS_ALLOWED = [0, 1, 2]


@dataclass
class StepMeta:
    seq_lens: torch.Tensor
    block_table: torch.Tensor
    allowed: torch.Tensor


def build_step_meta(batch, device: torch.device) -> StepMeta:
    # data whose type the module cannot show: a list of the scheduler's, per step
    seq_lens = torch.tensor(batch.seq_lens, dtype=torch.int32, device=device)  # expect: HTD106
    blocks = [b for req in batch.requests for b in req.block_ids]
    block_table = torch.tensor(blocks, dtype=torch.int32, device=device)  # expect: HTD106
    allowed = torch.tensor(ALWAYS_ALLOWED, device=device)  # expect: HTD107
    return StepMeta(seq_lens, block_table, allowed)

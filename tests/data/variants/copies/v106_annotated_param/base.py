from __future__ import annotations

import torch


class AttentionMetadataBuilder:
    """Builds the attention metadata of one step (``build`` runs every step)."""

    def build(self, seq_lens: list[int], block_ids: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

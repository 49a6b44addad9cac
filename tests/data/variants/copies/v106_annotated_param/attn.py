from __future__ import annotations

import torch

from v106_annotated_param.base import AttentionMetadataBuilder


class DecodeBuilder(AttentionMetadataBuilder):
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def build(self, seq_lens: list[int], block_ids: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        lens = torch.tensor(seq_lens, dtype=torch.int32, device=self.device)  # expect: HTD106
        table = torch.tensor(block_ids, dtype=torch.int32, device=self.device)  # expect: HTD106
        return lens, table


class LayerWeights:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def build(self, sizes: list[int]) -> torch.Tensor:
        # A layer's build: runs once when the model is made.
        return torch.tensor(sizes, device=self.device)  # expect-not: HTD106

from __future__ import annotations

import torch
import torch.nn as nn

from v106_batch_field_forward.batch import ForwardBatch


class TinyLM(nn.Module):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.device = device
        self.embed = nn.Embedding(100, 8)

    def forward(self, input_ids: torch.Tensor, batch: ForwardBatch) -> torch.Tensor:
        positions = torch.tensor(batch.positions, device=self.device)  # expect: HTD106
        return self.embed(input_ids) + positions[:, None]

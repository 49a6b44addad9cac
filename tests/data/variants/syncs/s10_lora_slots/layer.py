import torch
from torch import nn

from .lora import LoRABatch


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, batch: LoRABatch) -> None:
        super().__init__()
        self.base = base
        self.batch = batch
        self.adapters: list = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.base(x)
        n = x.shape[0]
        return self.batch.apply(y, self.batch.slot_of_token[:n], self.adapters)

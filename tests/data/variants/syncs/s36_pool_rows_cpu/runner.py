import torch

from .pooler import LastTokenPooler


class PoolingRunner:
    def __init__(self, model) -> None:
        self.model = model
        self.pooler = LastTokenPooler()

    def execute_model(self, ids: torch.Tensor, seq_ends: list[int]) -> list[torch.Tensor]:
        hidden = self.model(ids)
        return self.pooler(hidden, seq_ends)

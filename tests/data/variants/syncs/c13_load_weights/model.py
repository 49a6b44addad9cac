import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.empty(dim, dim))

    def load_weights(self, weights) -> None:
        for name, tensor in weights:
            tensor = tensor.to(self.w.device)
            if tensor.abs().max().item() > 1e4:  # expect-not: HTD202
                raise ValueError(name)
            for i in range(tensor.shape[0]):  # expect-not: HTD201
                self.w.data[i].copy_(tensor[i])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.w

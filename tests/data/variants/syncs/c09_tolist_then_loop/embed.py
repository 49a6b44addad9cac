import torch
from torch import nn


class MMEmbedder(nn.Module):
    def __init__(self, dim: int, merge: int) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.merge = merge

    def forward(self, pixels: torch.Tensor, grid_thw: list[list[int]]) -> list[torch.Tensor]:
        embeds = self.proj(pixels)
        sizes = [t * h * w // self.merge for t, h, w in grid_thw]  # expect-not: HTD201
        chunks = []
        for chunk, n in zip(embeds.split(sizes), sizes):  # expect-not: HTD201
            chunks.append(chunk[:n])
        return chunks

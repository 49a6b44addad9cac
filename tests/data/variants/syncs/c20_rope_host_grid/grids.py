import torch


def build_grid(sizes: list[tuple[int, int, int]]) -> torch.Tensor:
    return torch.tensor(sizes, dtype=torch.long)

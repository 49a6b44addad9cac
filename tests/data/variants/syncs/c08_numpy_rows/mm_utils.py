import numpy as np
import torch


def tokens_per_item(image_grid_thw, merge_size: int) -> list[int]:
    if isinstance(image_grid_thw, torch.Tensor):
        return (torch.prod(image_grid_thw, dim=-1) // merge_size**2).tolist()  # expect-not: HTD201
    return [int(np.prod(grid)) // merge_size**2 for grid in image_grid_thw]  # expect-not: HTD201


class MMInputs:
    def __init__(self, grids: np.ndarray) -> None:
        self.grids = grids

    def forward(self) -> list[int]:
        return [int(np.prod(g)) for g in self.grids]  # expect-not: HTD201

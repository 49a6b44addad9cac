from dataclasses import dataclass

import torch


@dataclass
class MultiModalKwargs:
    image_grid_thw: torch.Tensor
    video_grid_thw: torch.Tensor


def collect(grids: list[list[int]], vids: list[list[int]]) -> MultiModalKwargs:
    return MultiModalKwargs(torch.tensor(grids), torch.as_tensor(vids, dtype=torch.long))

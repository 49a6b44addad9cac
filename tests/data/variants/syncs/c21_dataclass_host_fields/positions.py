import torch

from .inputs import MultiModalKwargs, collect


class MRotaryPositions:
    def __init__(self, merge: int) -> None:
        self.merge = merge

    def prepare_inputs(self, grids: list[list[int]], vids: list[list[int]]) -> torch.Tensor:
        mm = collect(grids, vids)
        pos = []
        for t, h, w in mm.image_grid_thw:  # expect-not: HTD201
            pos.append(torch.arange(t * h * w // self.merge))
        for i in range(len(mm.video_grid_thw)):  # expect-not: HTD201
            pos.append(torch.arange(int(mm.video_grid_thw[i].prod().item())))
        return torch.cat(pos)

    def from_kwargs(self, mm: MultiModalKwargs) -> list[int]:
        return [int(g.prod()) for g in mm.image_grid_thw]  # allow: HTD201

import torch


def image_grids(sizes: list[tuple[int, int]], patch: int) -> torch.Tensor:
    rows = [[1, h // patch, w // patch] for h, w in sizes]
    return torch.tensor(rows, dtype=torch.long)


class ImageProcessor:
    def __init__(self, patch: int) -> None:
        self.patch = patch

    def __call__(self, sizes: list[tuple[int, int]]) -> dict[str, torch.Tensor]:
        return {"image_grid_thw": image_grids(sizes, self.patch)}

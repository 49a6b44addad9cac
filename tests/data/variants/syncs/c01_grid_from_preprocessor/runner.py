import torch

from .processor import ImageProcessor, image_grids


class MMRunner:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.processor = ImageProcessor(14)

    def execute_model(self, sizes: list[tuple[int, int]]) -> list[int]:
        grid = image_grids(sizes, 14)
        counts = [int(torch.prod(grid[i]).item()) for i in range(grid.shape[0])]  # expect-not: HTD201, HTD202
        for row in grid:  # expect-not: HTD201
            counts.append(int(row.prod()))
        grid_dev = grid.to(self.device, non_blocking=True)
        return counts + [grid_dev.shape[0]]

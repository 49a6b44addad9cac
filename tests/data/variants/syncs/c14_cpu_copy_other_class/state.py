import torch


class MMState:
    def __init__(self, grid_thw: torch.Tensor, positions: torch.Tensor) -> None:
        self.grid = grid_thw.cpu()
        self.mrope_positions = positions.to("cpu", non_blocking=True)
        self.lengths = grid_thw.prod(-1).tolist()

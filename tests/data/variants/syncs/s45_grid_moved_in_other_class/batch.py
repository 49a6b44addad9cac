import torch


class MMBatch:
    def __init__(self, grid_thw: torch.Tensor, device: torch.device) -> None:
        self.grid_thw = grid_thw.to(device, non_blocking=True)
        self.grid_thw_cpu = grid_thw

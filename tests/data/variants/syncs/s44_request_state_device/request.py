import torch


class CachedRequest:
    def __init__(self, req_id: str, grid_thw: torch.Tensor, device: torch.device) -> None:
        self.req_id = req_id
        self.mm_grid = grid_thw.to(device)
        self.mm_grid_host = grid_thw.cpu()

import torch


class BlockTable:
    def __init__(self, max_reqs: int, max_blocks: int, device: torch.device) -> None:
        self.table = torch.zeros((max_reqs, max_blocks), dtype=torch.int32, device=device)
        self.table_cpu = torch.zeros((max_reqs, max_blocks), dtype=torch.int32, pin_memory=True)
        self.num_blocks = [0] * max_reqs

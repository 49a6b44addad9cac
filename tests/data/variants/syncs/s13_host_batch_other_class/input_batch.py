import numpy as np
import torch


class InputBatch:
    def __init__(self, max_reqs: int, max_len: int) -> None:
        self.token_ids_cpu_tensor = torch.zeros((max_reqs, max_len), dtype=torch.int32, device="cpu", pin_memory=True)
        self.token_ids = self.token_ids_cpu_tensor.numpy()
        self.num_computed = torch.zeros(max_reqs, dtype=torch.int32)
        self.temperature = torch.empty(max_reqs, dtype=torch.float32)

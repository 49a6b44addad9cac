import numpy as np
import torch


class Prep:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.device = device
        self.num_tokens_np = np.zeros(max_reqs, dtype=np.int32)

    def prepare_inputs(self, num_reqs: int) -> torch.Tensor:
        counts = torch.from_numpy(self.num_tokens_np[:num_reqs])
        total = int(counts.sum())  # expect-not: HTD202
        if (counts == 0).any():  # expect-not: HTD202
            total += 1
        ids = torch.arange(total)
        for i in range(counts.shape[0]):  # expect-not: HTD201
            ids[i] = counts[i].item()
        return ids.to(self.device, non_blocking=True)

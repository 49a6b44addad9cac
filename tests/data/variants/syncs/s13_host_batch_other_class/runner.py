import torch

from .input_batch import InputBatch


class GPUModelRunner:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.device = device
        self.input_batch = InputBatch(max_reqs, 4096)

    def execute_model(self, num_reqs: int) -> list[int]:
        starts = []
        for i in range(num_reqs):
            starts.append(self.input_batch.num_computed[i].item())  # expect-not: HTD201, HTD202
        greedy = [bool(t == 0.0) for t in self.input_batch.temperature[:num_reqs]]  # expect-not: HTD201
        temps = self.input_batch.temperature[:num_reqs].to(self.device, non_blocking=True)
        return [s + int(g) for s, g in zip(starts, greedy)] + [int(temps.numel())]

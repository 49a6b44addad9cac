import torch

from .sampler import Sampler


class Runner:
    def __init__(self, model, device: torch.device) -> None:
        self.model = model
        self.device = device
        self.sampler = Sampler(5)

    def execute_model(self, input_ids: torch.Tensor, req_ids: list[str]):
        logits = self.model(input_ids.to(self.device, non_blocking=True))
        return self.sampler.sample(logits, req_ids)

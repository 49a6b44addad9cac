import torch

from .output import AsyncOutput


class Runner:
    def __init__(self, model) -> None:
        self.model = model

    def execute_model(self, input_ids: torch.Tensor) -> AsyncOutput:
        logits = self.model(input_ids)
        sampled = logits.argmax(-1)
        host = sampled.to("cpu", non_blocking=True)
        for i in range(host.shape[0]):  # expect-not: HTD201
            if host[i] < 0:
                break
        return AsyncOutput(sampled)

import torch

from .accept import RejectionSampler


class SpecDecodeWorker:
    def __init__(self) -> None:
        self.sampler = RejectionSampler()

    def execute_model(self, draft: torch.Tensor, target_logits: torch.Tensor, reqs: list) -> None:
        num_accepted = self.sampler(draft, target_logits.argmax(dim=-1))
        counts = num_accepted.tolist()  # expect: HTD202
        for req, n in zip(reqs, counts):  # expect-not: HTD201
            req.num_computed += n + 1
        for req, n in zip(reqs, num_accepted):
            req.num_computed += int(n)  # expect: HTD201

import torch


class Req:
    def __init__(self, idx: int) -> None:
        self.idx = idx
        self.logprobs: list[float] = []


class OutputProcessor:
    def process_outputs(self, reqs: list[Req], logprobs: torch.Tensor, host_lp: list[float]) -> None:
        for req in reqs:
            req.logprobs.append(logprobs[req.idx].item())  # expect: HTD201
        for req in reqs:  # expect-not: HTD201
            req.logprobs.append(host_lp[req.idx])

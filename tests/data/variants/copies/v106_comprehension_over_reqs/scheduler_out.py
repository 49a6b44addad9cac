from __future__ import annotations

import torch

from v106_comprehension_over_reqs.reqs import RunningReq


class BatchInputs:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def prepare(self, reqs: list[RunningReq]) -> torch.Tensor:
        return torch.tensor([r.num_computed + r.num_new for r in reqs], device=self.device)  # expect: HTD106

    def prepare_host(self, reqs: list[RunningReq]) -> torch.Tensor:
        return torch.tensor([r.num_computed for r in reqs], device="cpu")  # expect-not: HTD106

"""Host-side bookkeeping: numpy arrays and Python lists, never on the device."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch


@dataclass
class StepPlan:
    req_ids: list[str]
    num_tokens: np.ndarray  # (num_reqs,) int32, host
    block_ids: list[list[int]] = field(default_factory=list)
    lora_ids: list[int] = field(default_factory=list)


class Scheduler:
    def __init__(self, max_reqs: int) -> None:
        self.num_computed = np.zeros(max_reqs, dtype=np.int64)
        self.lengths = torch.zeros(max_reqs, dtype=torch.int64)  # a CPU tensor

    def schedule(self, waiting: list[str]) -> StepPlan:
        budget = torch.tensor([len(w) for w in waiting])
        order = torch.argsort(budget, descending=True).tolist()  # expect-not: HTD202
        longest = int(self.lengths.max().item())  # expect-not: HTD202
        counts = np.minimum(self.num_computed[: len(order)] + 1, longest)
        return StepPlan([waiting[i] for i in order], counts.astype(np.int32))

    def update_from_output(self, plan: StepPlan, sampled: list[list[int]]) -> None:
        for i, tokens in enumerate(sampled):
            self.num_computed[i] += len(tokens)
            self.lengths[i] += len(tokens)

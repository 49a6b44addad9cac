from __future__ import annotations

import torch

from v102_dataclass_np_field.sched import StepPlan


class Runner:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def execute_model(self, plan: StepPlan) -> torch.Tensor:
        ids = torch.from_numpy(plan.token_ids).to(self.device, non_blocking=True)  # expect: HTD102
        return ids

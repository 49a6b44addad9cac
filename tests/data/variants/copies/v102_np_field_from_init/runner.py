from __future__ import annotations

import torch

from v102_np_field_from_init.state import RequestState


class Runner:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.state = RequestState(max_reqs)
        self.device = device

    def execute_model(self, n: int) -> torch.Tensor:
        return torch.from_numpy(self.state.seq_lens[:n]).to(self.device, non_blocking=True)  # expect: HTD102

from __future__ import annotations

import torch


class SamplingState:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.top_k = torch.zeros(max_reqs, dtype=torch.int32, device=device)
        self.top_k_cpu = torch.zeros(max_reqs, dtype=torch.int32, pin_memory=True)

    def update(self, top_ks: list[int]) -> None:
        n = len(top_ks)
        self.top_k[:n] = torch.tensor(top_ks, dtype=torch.int32)  # expect: HTD106

    def update_host(self, top_ks: list[int]) -> None:
        n = len(top_ks)
        self.top_k_cpu[:n] = torch.tensor(top_ks, dtype=torch.int32)  # expect-not: HTD106

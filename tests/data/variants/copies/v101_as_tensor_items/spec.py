from __future__ import annotations

import torch


class DraftProposer:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def propose(self, draft_token_ids: list[list[int]]) -> list[torch.Tensor]:
        return [torch.as_tensor(d, device=self.device) for d in draft_token_ids]  # expect: HTD101

    def propose_host(self, draft_token_ids: list[list[int]]) -> list[torch.Tensor]:
        return [torch.as_tensor(d) for d in draft_token_ids]  # expect-not: HTD101

"""A draft-model proposer and the acceptance bookkeeping of speculative decoding."""

from __future__ import annotations

import torch


class DraftProposer:
    def __init__(self, k: int, device: torch.device) -> None:
        self.k = k
        self.device = device

    def propose(self, target_ids: torch.Tensor, num_accepted: torch.Tensor) -> list[list[int]]:
        next_ids = target_ids.argmax(dim=-1)
        drafts = []
        for i in range(num_accepted.shape[0]):
            n = int(num_accepted[i])  # expect: HTD201
            drafts.append(next_ids[i, :n].tolist())
        return drafts

    def accepted_lengths(self, num_accepted: torch.Tensor) -> list[int]:
        # A non-blocking copy read at once: no sync (HTD202), but a race (HTD401).
        return num_accepted.to("cpu", non_blocking=True).tolist()  # expect: HTD401; expect-not: HTD202

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn


class RejectionSampler(nn.Module):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.device = device

    def forward(self, draft_token_ids: torch.Tensor, num_draft_tokens: list[int], target_logits: torch.Tensor) -> torch.Tensor:
        # Offsets computed on the host: a fresh numpy array, pageable.
        cu_num_draft = torch.from_numpy(np.cumsum(num_draft_tokens, dtype=np.int32)).to(self.device, non_blocking=True)  # expect: HTD102
        target_argmax = target_logits.argmax(dim=-1)
        draft_counts = torch.tensor(num_draft_tokens, pin_memory=True).to(self.device, non_blocking=True)  # expect-not: HTD102, HTD106
        total = sum(num_draft_tokens)
        # The length of the expansion is known on the host: no read of the repeats.
        req_of_token = torch.repeat_interleave(torch.arange(len(num_draft_tokens), device=self.device), draft_counts, output_size=total)  # expect-not: HTD202
        matches = (draft_token_ids == target_argmax[: draft_token_ids.shape[0]]).int()
        first_reject = torch.zeros(len(num_draft_tokens), dtype=torch.int32, device=self.device)
        first_reject.scatter_reduce_(0, req_of_token, 1 - matches, reduce="sum")
        bonus_per_token = self.expand_per_token(first_reject, draft_counts)
        return cu_num_draft, first_reject, bonus_per_token

    def expand_per_token(self, values: torch.Tensor, draft_counts: torch.Tensor) -> torch.Tensor:
        # Called every step: the output length depends on the device counts.
        return torch.repeat_interleave(values, draft_counts)  # expect: HTD202

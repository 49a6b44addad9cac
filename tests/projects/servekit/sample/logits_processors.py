"""Logits processors, applied by the sampler to every step's logits."""

from __future__ import annotations

import torch


class MinTokensProcessor:
    """Masks the stop tokens of requests that have not produced min_tokens yet."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.neg_inf = torch.tensor(float("-inf"), device=device)  # expect-not: HTD107

    def apply(self, logits: torch.Tensor, output_lens: list[int], min_tokens: dict[int, tuple[int, list[int]]]) -> torch.Tensor:
        for row, (min_toks, stop_ids) in min_tokens.items():
            if output_lens[row] < min_toks:
                logits[row, stop_ids] = float("-inf")  # expect: HTD202
        return logits

    def apply_batched(self, logits: torch.Tensor, output_lens: list[int], min_tokens: dict[int, tuple[int, list[int]]]) -> torch.Tensor:
        # One (row, column) list for the whole batch, copied once through pinned memory.
        rows: list[int] = []
        cols: list[int] = []
        for row, (min_toks, stop_ids) in min_tokens.items():
            if output_lens[row] < min_toks:
                rows.extend([row] * len(stop_ids))
                cols.extend(stop_ids)
        index = torch.tensor([rows, cols], dtype=torch.long, pin_memory=True).to(self.device, non_blocking=True)  # expect-not: HTD102, HTD106
        logits.index_put_((index[0], index[1]), self.neg_inf)  # expect-not: HTD202
        return logits


class AllowedTokenIdsProcessor:
    def apply(self, logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if mask.any():  # expect: HTD202
            logits.masked_fill_(mask, float("-inf"))
        return logits

    def apply_always(self, logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # Filling an all-false mask costs less than asking the host whether it is all false.
        return logits.masked_fill_(mask, float("-inf"))  # expect-not: HTD202

"""The sampler: logits processors, temperature, top-k/top-p, logprobs."""

from __future__ import annotations

import torch
import torch.nn as nn

from servekit.sample.logits_processors import AllowedTokenIdsProcessor, MinTokensProcessor
from servekit.sample.metadata import SamplingMetadata


class Sampler(nn.Module):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.min_tokens = MinTokensProcessor(device)
        self.allowed = AllowedTokenIdsProcessor()

    def forward(self, logits: torch.Tensor, metadata: SamplingMetadata) -> tuple[torch.Tensor, torch.Tensor | None]:
        logits = self.min_tokens.apply(logits, metadata.output_lens, metadata.min_tokens)
        if metadata.allowed_token_ids_mask is not None:
            logits = self.allowed.apply(logits, metadata.allowed_token_ids_mask)
        greedy = logits.argmax(dim=-1)
        if metadata.all_greedy:
            return greedy, None
        logits = logits / metadata.temperature.clamp(min=1e-5).unsqueeze(1)
        logits = self.apply_top_p(logits, metadata.top_p)
        logits = self.apply_top_p_host(logits, metadata.top_p_host)
        probs = logits.softmax(dim=-1)
        sampled = torch.multinomial(probs, 1).squeeze(1)
        logprobs = self.gather_logprobs(logits, sampled, metadata.max_num_logprobs)
        return sampled, logprobs

    def apply_top_p(self, logits: torch.Tensor, top_p: torch.Tensor) -> torch.Tensor:
        for i in range(logits.shape[0]):
            p = top_p[i].item()  # expect: HTD201
            if p < 1.0:
                logits[i] = _top_p_row(logits[i], p)
        return logits

    def apply_top_p_host(self, logits: torch.Tensor, top_p: list[float]) -> torch.Tensor:
        # The thresholds are Python floats the batch kept on the host.
        for i, p in enumerate(top_p):  # expect-not: HTD201
            if p < 1.0:
                logits[i] = _top_p_row(logits[i], p)
        return logits

    def gather_logprobs(self, logits: torch.Tensor, sampled: torch.Tensor, k: int | None) -> torch.Tensor | None:
        if k is None:
            return None
        logprobs = logits.log_softmax(dim=-1)
        topk = logprobs.topk(k, dim=-1).indices
        return torch.cat([sampled.unsqueeze(1), topk], dim=1)


def _top_p_row(row: torch.Tensor, p: float) -> torch.Tensor:
    probs, order = row.softmax(-1).sort(descending=True)
    drop = probs.cumsum(-1) - probs > p
    return row.scatter(0, order, torch.where(drop, float("-inf"), row.gather(0, order)))

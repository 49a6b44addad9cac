"""Sampling from the logits, and acceptance of speculative (draft) tokens."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class SamplingMetadata:
    temperature: torch.Tensor  # (num_reqs,) float32, on the device
    bad_words_mask: torch.Tensor  # (num_reqs, vocab) bool, on the device
    req_ids: list[str]
    return_logprobs: bool = False
    seed_step: int = 0

    @classmethod
    def greedy(cls, num_reqs: int, device: torch.device) -> SamplingMetadata:
        with torch.device(device):
            temperature = torch.zeros(num_reqs)
            mask = torch.zeros(num_reqs, 1, dtype=torch.bool)
        return cls(temperature, mask, [str(i) for i in range(num_reqs)])


class Sampler:
    def __init__(self, vocab_size: int, device: torch.device) -> None:
        self.vocab_size = vocab_size
        self.device = device
        self.logprobs_by_request: dict[str, np.ndarray] = {}

    def apply_bad_words(self, logits: torch.Tensor, metadata: SamplingMetadata) -> torch.Tensor:
        for i in range(logits.shape[0]):
            if (metadata.bad_words_mask[i] > 0).any():  # expect: HTD201; expect-not: HTD202
                logits[i].masked_fill_(metadata.bad_words_mask[i], float("-inf"))
        return logits

    def apply_stop_ids(self, logits: torch.Tensor, stop_ids: list[torch.Tensor]) -> torch.Tensor:
        # stop_ids: one small device tensor per new request; a device-to-device scatter each.
        for i, ids in enumerate(stop_ids):
            logits[i].index_fill_(0, ids, 0.0)
        return logits

    def keep_logprobs(self, logits: torch.Tensor, req_ids: list[str]) -> None:
        logprobs = torch.log_softmax(logits, dim=-1)
        for i, req_id in enumerate(req_ids):
            self.logprobs_by_request[req_id] = logprobs[i].cpu().numpy()  # expect: HTD201; expect-not: HTD202

    def __call__(self, logits: torch.Tensor, metadata: SamplingMetadata, stop_ids: list[torch.Tensor]) -> torch.Tensor:
        logits = self.apply_bad_words(logits, metadata)
        logits = self.apply_stop_ids(logits, stop_ids)
        if metadata.return_logprobs:
            self.keep_logprobs(logits, metadata.req_ids)
        # A few bytes: the step offset of the seeded generators.
        offset = torch.tensor([metadata.seed_step]).to(self.device)  # expect-not: HTD102, HTD105, HTD106
        greedy = logits.argmax(dim=-1)
        scaled = logits / metadata.temperature.clamp(min=1e-5).unsqueeze(1)
        noise = torch.empty_like(scaled).exponential_().add_(offset.float() * 0)
        sampled = (scaled.softmax(dim=-1) / noise).argmax(dim=-1)
        return torch.where(metadata.temperature == 0, greedy, sampled)


class RejectionSampler:
    def __init__(self, num_speculative_tokens: int) -> None:
        self.k = num_speculative_tokens

    def num_accepted(self, draft_token_ids: torch.Tensor, target_logits: torch.Tensor) -> int:
        """How many draft tokens of one request the target model agrees with, greedily."""
        target_token_ids = target_logits.argmax(dim=-1)
        n = 0
        while n < self.k and draft_token_ids[n].item() == target_token_ids[n].item():  # expect: HTD201
            n += 1
        return n

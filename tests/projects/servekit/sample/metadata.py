from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class SamplingMetadata:
    temperature: torch.Tensor  # (num_reqs,) device
    top_k: torch.Tensor  # (num_reqs,) device
    top_p: torch.Tensor  # (num_reqs,) device
    top_p_host: list[float]
    all_greedy: bool
    output_lens: list[int]
    min_tokens: dict[int, tuple[int, list[int]]]
    allowed_token_ids_mask: torch.Tensor | None
    max_num_logprobs: int | None

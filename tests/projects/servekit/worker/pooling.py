"""Pooled outputs (embeddings, scores) handed back to the host once per step."""

from __future__ import annotations

import torch


def pool_last_tokens(hidden_states: torch.Tensor, query_start_loc: torch.Tensor) -> list[torch.Tensor]:
    last = query_start_loc[1:] - 1
    return list(hidden_states[last].unbind(0))


def outputs_to_host_each(outputs: list[torch.Tensor]) -> list[torch.Tensor]:
    return [o.cpu() for o in outputs]  # expect: HTD201


def outputs_to_host(outputs: list[torch.Tensor]) -> list[torch.Tensor]:
    # One stacked copy for the whole batch: the one read the step needs.
    return list(torch.stack(outputs).cpu().unbind(0))  # expect-not: HTD201; allow: HTD202

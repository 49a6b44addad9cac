import torch


def route_tokens(topk_ids: torch.Tensor, expert: int) -> torch.Tensor:
    token_idx, _ = torch.where(topk_ids == expert)  # expect: HTD202
    return token_idx


def combine(a: torch.Tensor, b: torch.Tensor, use_a: torch.Tensor) -> torch.Tensor:
    return torch.where(use_a, a, b)  # expect-not: HTD202

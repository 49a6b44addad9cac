import torch


def longest(seq_lens: torch.Tensor) -> int:
    return int(seq_lens.max().item())  # expect: HTD202


def longest_of_list(seq_lens: list[int]) -> int:
    return max(seq_lens)

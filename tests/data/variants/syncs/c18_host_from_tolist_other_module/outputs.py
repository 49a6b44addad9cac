import torch


def to_host_lists(sampled: torch.Tensor) -> list[list[int]]:
    return sampled.cpu().tolist()  # expect: HTD202

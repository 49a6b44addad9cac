import torch


class KVWriter:
    def __init__(self, cache: torch.Tensor) -> None:
        self.cache = cache

    def forward(self, key: torch.Tensor, slot_mapping: torch.Tensor) -> None:
        assert (slot_mapping >= 0).all(), "bad slot"  # expect-not: HTD202
        assert slot_mapping.max().item() < self.cache.shape[0]  # expect-not: HTD202
        self.cache.index_copy_(0, slot_mapping, key)

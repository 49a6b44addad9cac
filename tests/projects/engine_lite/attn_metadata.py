"""Attention metadata built once per step from the runner's device tensors."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class CommonMetadata:
    query_start_loc: torch.Tensor  # device
    seq_lens: torch.Tensor  # device
    seq_lens_cpu: torch.Tensor  # host copy made by the runner
    max_seq_len: int  # host


class FlashMetadataBuilder:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def build(self, common: CommonMetadata) -> dict[str, object]:
        query_lens = common.query_start_loc[1:] - common.query_start_loc[:-1]
        max_query_len = int(query_lens.max())  # expect: HTD202
        max_seq_len = common.seq_lens_cpu.max().item()  # expect-not: HTD202
        decode_only = bool((query_lens == 1).all())  # expect: HTD202
        return {"max_query_len": max_query_len, "max_seq_len": max_seq_len, "decode_only": decode_only}


class TreeMetadataBuilder(FlashMetadataBuilder):
    def build(self, common: CommonMetadata) -> dict[str, object]:
        # Host sizes kept next to the tensors: no sync.
        return {"max_seq_len": common.max_seq_len, "seq_lens": common.seq_lens}  # expect-not: HTD202


def init_forward_metadata(seq_lens: torch.Tensor, page_size: int) -> torch.Tensor:
    num_pages = (seq_lens + page_size - 1) // page_size
    return torch.repeat_interleave(torch.arange(num_pages.numel(), device=num_pages.device), num_pages)  # expect: HTD202

"""A varlen flash-attention backend."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from servekit.attention.common import CommonAttentionMetadata


@dataclass
class FlashAttentionMetadata:
    max_seq_len: int
    max_query_len: int
    num_decodes: int
    cu_seqlens_k: torch.Tensor
    scheduler_metadata: torch.Tensor | None


class FlashAttentionMetadataBuilder:
    def __init__(self, max_num_reqs: int, device: torch.device) -> None:
        self.device = device
        self.cu_seqlens_k = torch.zeros(max_num_reqs + 1, dtype=torch.int32, device=device)

    def build(self, common: CommonAttentionMetadata) -> FlashAttentionMetadata:
        n = common.num_reqs
        max_seq_len = int(common.seq_lens[:n].max().item())  # expect: HTD202
        # The host copies answer the same questions without a sync.
        query_lens = common.query_start_loc_cpu[1:] - common.query_start_loc_cpu[:-1]
        num_decodes = int((query_lens == 1).sum())  # expect-not: HTD202
        max_seq_len_host = int(common.seq_lens_cpu[:n].max())  # expect-not: HTD202
        torch.cumsum(common.seq_lens[:n], dim=0, out=self.cu_seqlens_k[1 : n + 1])
        return FlashAttentionMetadata(max(max_seq_len, max_seq_len_host), common.max_query_len, num_decodes, self.cu_seqlens_k[: n + 1], None)


class ChunkedPrefillMetadataBuilder(FlashAttentionMetadataBuilder):
    def build(self, common: CommonAttentionMetadata) -> FlashAttentionMetadata:
        meta = super().build(common)
        prefill_lens = common.seq_lens[meta.num_decodes : common.num_reqs]
        longest = prefill_lens.max()
        # A 0-d device tensor as a size: the host reads it first.
        chunk_starts = torch.arange(longest, device=self.device)  # expect: HTD202
        meta.scheduler_metadata = chunk_starts
        return meta

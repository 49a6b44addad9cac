"""A draft-model proposer run after every verified step."""

from __future__ import annotations

import torch

from servekit.attention.common import CommonAttentionMetadata


class EagleProposer:
    def __init__(self, num_speculative_tokens: int, device: torch.device) -> None:
        self.k = num_speculative_tokens
        self.device = device
        self.num_accepted_host = torch.zeros(1024, dtype=torch.int32, pin_memory=True)
        self.copy_event = torch.cuda.Event()

    def propose(self, common: CommonAttentionMetadata, num_accepted: torch.Tensor, hidden_states: torch.Tensor) -> torch.Tensor:
        total_accepted = num_accepted.sum().item()  # expect: HTD202
        # Read back into pinned memory, waited for with an event before the host reads it.
        n = num_accepted.shape[0]
        self.num_accepted_host[:n].copy_(num_accepted, non_blocking=True)
        self.copy_event.record()
        last = common.query_start_loc[1:] - 1
        next_hidden = hidden_states[last][:total_accepted]
        return next_hidden

    def prepare_next_inputs(self, common: CommonAttentionMetadata, num_rejected: torch.Tensor) -> CommonAttentionMetadata:
        new_seq_lens = common.seq_lens - num_rejected
        self.copy_event.synchronize()
        num_rejected_host = self.num_accepted_host[: common.num_reqs].tolist()  # expect-not: HTD202
        # The host copy of the offsets is already there: common.query_start_loc_cpu.
        query_start_loc_cpu = common.query_start_loc.cpu()  # expect: HTD202
        new_seq_lens_cpu = common.seq_lens_cpu - torch.tensor(num_rejected_host, dtype=torch.int32)  # expect-not: HTD202, HTD106
        return CommonAttentionMetadata(common.query_start_loc, query_start_loc_cpu, new_seq_lens, new_seq_lens_cpu, common.num_reqs, common.num_actual_tokens, common.max_query_len, common.block_table, common.slot_mapping)

"""The model runner: applies the scheduler's output to the persistent batch, builds the step's
inputs and metadata, runs the model, the sampler and the proposer, and returns the sampled
tokens to the host."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from servekit.attention.common import CommonAttentionMetadata
from servekit.attention.flash import FlashAttentionMetadataBuilder
from servekit.kv_offload.handler import OffloadHandler
from servekit.lora.punica import LoRAMapping, PunicaWrapper
from servekit.models.vlm import VisionLanguageModel
from servekit.multimodal.inputs import group_pixel_values, grid_rows
from servekit.sample.metadata import SamplingMetadata
from servekit.sample.sampler import Sampler
from servekit.spec_decode.eagle import EagleProposer
from servekit.spec_decode.rejection import RejectionSampler
from servekit.structured_output.bitmask import GrammarBitmask
from servekit.utils.device import numpy_to_device, to_device
from servekit.worker.block_table import DeviceBlockTable
from servekit.worker.input_batch import CachedRequestState, InputBatch
from servekit.worker.pooling import outputs_to_host, outputs_to_host_each, pool_last_tokens


@dataclass
class SchedulerOutput:
    new_requests: list[CachedRequestState]
    num_scheduled_tokens: dict[str, int]
    finished_req_ids: set[str] = field(default_factory=set)
    grammar_bitmask: np.ndarray | None = None
    structured_rows: dict[str, int] = field(default_factory=dict)
    lora_mapping: LoRAMapping | None = None
    swap_in: list[tuple[int, int]] = field(default_factory=list)
    draft_token_ids: torch.Tensor | None = None
    pooling: bool = False
    num_draft_tokens: list[int] = field(default_factory=list)


class GPUModelRunner:
    def __init__(self, vocab_size: int, device: torch.device) -> None:
        self.device = device
        self.max_num_reqs = 256
        self.max_num_tokens = 8192
        self.input_batch = InputBatch(self.max_num_reqs, 4096, self.max_num_tokens, vocab_size, device)
        self.device_block_table = DeviceBlockTable(self.max_num_reqs, 256, device)
        self.attn_builder = FlashAttentionMetadataBuilder(self.max_num_reqs, device)
        self.sampler = Sampler(device)
        self.rejection_sampler = RejectionSampler(device)
        self.proposer = EagleProposer(3, device)
        self.lora = PunicaWrapper(self.max_num_tokens, self.max_num_reqs, device)
        self.bitmask = GrammarBitmask(self.max_num_reqs, vocab_size, device)
        self.lora_slots: list[int | None] = [None] * 8
        self.query_start_loc_cpu = torch.zeros(self.max_num_reqs + 1, dtype=torch.int32, pin_memory=True)
        self.seq_lens_cpu = torch.zeros(self.max_num_reqs, dtype=torch.int32, pin_memory=True)
        self.sampled_host = torch.zeros(self.max_num_reqs, dtype=torch.int64, pin_memory=True)
        self.output_event = torch.cuda.Event()
        self.model: VisionLanguageModel | None = None
        self.blocking_output = False
        self.offload: OffloadHandler | None = None

    def load_model(self, vocab_size: int, hidden: int) -> None:
        self.model = VisionLanguageModel(vocab_size, hidden, self.device).to(self.device)
        # Run once: constants moved one by one are fine here.
        self.stop_ids = [torch.tensor(ids).to(self.device) for ids in ([2], [32000, 32001])]  # expect-not: HTD101

    def initialize_kv_cache(self, num_blocks: int) -> None:
        caches = [torch.zeros(num_blocks, 16, 8, 128, device=self.device) for _ in range(4)]
        self.offload = OffloadHandler(caches, num_blocks * 4)

    # -- per step ------------------------------------------------------------------------------
    def _update_states(self, scheduler_output: SchedulerOutput) -> None:
        for req in scheduler_output.new_requests:
            row = len(self.input_batch.req_ids)
            self.input_batch.req_ids.append(req.req_id)
            self.input_batch.add_request(req, row)
        self.device_block_table.add_rows([req.block_ids for req in scheduler_output.new_requests])

    def _prepare_inputs(self, scheduler_output: SchedulerOutput) -> tuple[torch.Tensor, torch.Tensor, CommonAttentionMetadata]:
        req_ids = self.input_batch.req_ids
        num_reqs = len(req_ids)
        tokens = [scheduler_output.num_scheduled_tokens[r] for r in req_ids]
        num_scheduled = np.array(tokens, dtype=np.int32)
        total = int(num_scheduled.sum())
        req_indices = np.repeat(np.arange(num_reqs), num_scheduled)
        cu = np.cumsum(num_scheduled)
        positions_np = self.input_batch.num_tokens[req_indices] + np.arange(total) - np.repeat(cu - num_scheduled, num_scheduled)
        input_ids, positions = self.input_batch.prepare_inputs(num_reqs, total, req_indices, positions_np)

        self.query_start_loc_cpu[1 : num_reqs + 1] = torch.from_numpy(cu)
        query_start_loc = self.query_start_loc_cpu[: num_reqs + 1].to(self.device, non_blocking=True)  # expect-not: HTD102, HTD105
        # Built straight on the device from a Python list, every step.
        query_lens = torch.tensor(tokens, dtype=torch.int32, device=self.device)  # expect: HTD106
        seq_lens_np = self.input_batch.num_tokens[:num_reqs] + num_scheduled
        self.seq_lens_cpu[:num_reqs] = torch.from_numpy(seq_lens_np)
        seq_lens = numpy_to_device(seq_lens_np, self.device)
        req_idx = torch.from_numpy(req_indices).to(self.device, non_blocking=True)  # expect: HTD102
        self.input_batch.refresh_sampling(num_reqs, [1.0] * num_reqs)
        torch.cuda.synchronize()  # expect: HTD202
        common = CommonAttentionMetadata(query_start_loc, self.query_start_loc_cpu[: num_reqs + 1], seq_lens, self.seq_lens_cpu[:num_reqs], num_reqs, total, int(num_scheduled.max()), self.input_batch.block_table.table.gpu[:num_reqs], req_idx + query_lens[0])
        return input_ids, positions, common

    def _set_active_loras(self, scheduler_output: SchedulerOutput) -> None:
        if scheduler_output.lora_mapping is not None:
            self.lora.update_metadata(scheduler_output.lora_mapping, self.lora_slots)

    def _execute_mm_encoder(self, scheduler_output: SchedulerOutput) -> torch.Tensor | None:
        assert self.model is not None
        embeds = []
        for req in scheduler_output.new_requests:
            if not req.mm_features:
                continue
            pixel_values = group_pixel_values(req.mm_features, self.device)  # expect: HTD101
            grid = grid_rows(req.mm_features).to(self.device, non_blocking=True)  # expect: HTD104; allow: HTD102
            # (the items are already where group_pixel_values moved them: a cast on the device)
            embeds.extend(self.model.embed_multimodal([pixel_values], grid))  # allow: HTD101
        kwargs = to_device({"grid": [torch.zeros(3)]}, self.device)
        del kwargs
        return torch.cat(embeds) if embeds else None

    def _sampling_metadata(self, num_reqs: int) -> SamplingMetadata:
        batch = self.input_batch
        output_lens = [int(n) for n in batch.num_tokens[:num_reqs]]
        return SamplingMetadata(batch.temperature.gpu[:num_reqs], batch.top_k[:num_reqs], batch.top_p[:num_reqs], [1.0] * num_reqs, False, output_lens, batch.min_tokens, batch.allowed_token_ids_mask[:num_reqs], None)

    def execute_model(self, scheduler_output: SchedulerOutput) -> list[list[int]] | list[torch.Tensor]:
        assert self.model is not None
        if scheduler_output.pooling:
            return self._execute_pooling(scheduler_output)
        if self.blocking_output:
            return self._execute_blocking(scheduler_output)
        self._update_states(scheduler_output)
        input_ids, positions, common = self._prepare_inputs(scheduler_output)
        self._set_active_loras(scheduler_output)
        mm_embeds = self._execute_mm_encoder(scheduler_output)
        attn_metadata = self.attn_builder.build(common)
        hidden_states = self.model(input_ids, positions, mm_embeds)
        # Device to device: the model's output is already there.
        hidden_states = hidden_states.to(self.device, non_blocking=True)  # expect-not: HTD102
        logits = self.model.compute_logits(hidden_states[common.query_start_loc[1:] - 1])
        if scheduler_output.grammar_bitmask is not None:
            mask = self.bitmask.copy_per_request(scheduler_output.grammar_bitmask, scheduler_output.structured_rows)  # expect: HTD101
            logits = logits + mask.sum() * 0
        sampled, _ = self.sampler(logits, self._sampling_metadata(common.num_reqs))
        num_accepted = sampled.new_ones(common.num_reqs)
        self.proposer.propose(common, num_accepted, hidden_states)
        common = self.proposer.prepare_next_inputs(common, num_accepted)
        if scheduler_output.draft_token_ids is not None:
            self.rejection_sampler(scheduler_output.draft_token_ids, scheduler_output.num_draft_tokens, logits)
        del attn_metadata
        # Read back into pinned memory; the event says when it is there.
        n = common.num_reqs
        self.sampled_host[:n].copy_(sampled, non_blocking=True)
        self.output_event.record()
        self.output_event.synchronize()
        return [[t] for t in self.sampled_host[:n].tolist()]  # expect-not: HTD202

    def _execute_blocking(self, scheduler_output: SchedulerOutput) -> list[list[int]]:
        assert self.model is not None
        input_ids, positions, common = self._prepare_inputs(scheduler_output)
        hidden_states = self.model(input_ids, positions)
        sampled, _ = self.sampler(self.model.compute_logits(hidden_states), self._sampling_metadata(common.num_reqs))
        # The one read of the step's sampled tokens.
        sampled_ids = sampled.tolist()  # allow: HTD202
        per_request = []
        for i in range(common.num_reqs):
            per_request.append([int(sampled[i].item())])  # expect: HTD201
        return per_request if per_request else [sampled_ids]

    def _execute_pooling(self, scheduler_output: SchedulerOutput) -> list[torch.Tensor]:
        assert self.model is not None
        input_ids, positions, common = self._prepare_inputs(scheduler_output)
        hidden_states = self.model(input_ids, positions)
        pooled = pool_last_tokens(hidden_states, common.query_start_loc)
        if len(pooled) > 64:
            return outputs_to_host(pooled)
        return outputs_to_host_each(pooled)

    def swap_blocks(self, scheduler_output: SchedulerOutput) -> None:
        if self.offload is not None and scheduler_output.swap_in:
            src, dst = zip(*scheduler_output.swap_in)
            self.offload.swap_in(0, list(src), list(dst))

    # -- run once ------------------------------------------------------------------------------
    def profile_run(self) -> None:
        assert self.model is not None
        dummy = torch.zeros(self.max_num_tokens, dtype=torch.int32, device=self.device)
        hidden = self.model(dummy, torch.arange(self.max_num_tokens, device=self.device))
        torch.cuda.synchronize()  # expect-not: HTD202
        peak = hidden.abs().max().item()  # expect-not: HTD202
        del peak

    def capture_model(self, batch_sizes: list[int]) -> None:
        assert self.model is not None
        for bs in batch_sizes:
            ids = torch.tensor([0] * bs, device=self.device)  # expect-not: HTD106
            self.model(ids, torch.arange(bs, device=self.device))
            torch.cuda.synchronize()  # expect-not: HTD202

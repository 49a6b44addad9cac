"""The model runner: turns the scheduler's decisions into device inputs, runs the model and
the sampler, and hands the sampled tokens back to the host."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as nn

from serving_mm import mm_utils
from serving_mm.buffers import CpuGpuBuffer
from serving_mm.config import EngineConfig
from serving_mm.mm_utils import MultimodalItem, MultimodalRequest, embeddings_per_request
from serving_mm.sampler import RejectionSampler, Sampler, SamplingMetadata
from serving_mm.utils import is_pin_memory_available, to_device_each


@dataclass
class NewRequest:
    request_id: str
    prompt_token_ids: list[int]
    stop_token_ids: list[int]
    mm_request: MultimodalRequest | None = None


@dataclass
class SchedulerOutput:
    new_requests: list[NewRequest]
    request_ids: list[str]
    token_ids: np.ndarray  # (total_num_tokens,) int32
    positions: np.ndarray  # (total_num_tokens,) int64
    mrope_positions: np.ndarray  # (3, total_num_tokens) int64
    query_start_loc: np.ndarray  # (num_reqs + 1,) int32
    num_computed_tokens: np.ndarray  # (num_reqs,) int32, from the scheduler's bookkeeping
    temperatures: np.ndarray  # (num_reqs,) float32
    encoder_inputs: list[str] = field(default_factory=list)

    @property
    def total_num_tokens(self) -> int:
        return int(self.token_ids.shape[0])

    @property
    def num_reqs(self) -> int:
        return len(self.request_ids)


class GPUModelRunner:
    def __init__(self, config: EngineConfig, model: nn.Module, device: torch.device) -> None:
        self.config = config
        self.model = model
        self.device = device
        self.pin_memory = is_pin_memory_available()
        self.max_num_tokens = config.max_num_batched_tokens
        self.max_num_reqs = config.max_num_seqs
        self.uses_mrope = config.uses_mrope
        self.requests: dict[str, NewRequest] = {}

        self.input_ids = self._make_buffer(self.max_num_tokens, dtype=torch.int32)
        self.positions = self._make_buffer(self.max_num_tokens, dtype=torch.int64)
        self.query_start_loc = self._make_buffer(self.max_num_reqs + 1, dtype=torch.int32)
        # One row per rope section (t, h, w). The extra column keeps the rows from being one
        # dense block, so torch.compile does not specialise on a contiguous slice.
        self.mrope_positions = self._make_buffer(3, self.max_num_tokens + 1, dtype=torch.int64)
        self.temperature = self._make_buffer(self.max_num_reqs, dtype=torch.float32)

        # Device-only state: everything allocated in this block lives on the device.
        with torch.device(device):
            self.seq_lens = torch.zeros(self.max_num_reqs, dtype=torch.int32)
            self.graph_seq_lens = torch.zeros(self.max_num_reqs, dtype=torch.int32)
            self.graph_query_start_loc = torch.zeros(self.max_num_reqs + 1, dtype=torch.int32)
            self.bad_words_mask = torch.zeros(self.max_num_reqs, config.vocab_size, dtype=torch.bool)

        self.stop_token_tensors = [torch.tensor(ids).cuda() for ids in config.default_stop_token_ids]  # expect-not: HTD101
        self.sampler = Sampler(config.vocab_size, device)
        self.rejection_sampler = RejectionSampler(config.num_speculative_tokens)
        self.transfer_event = torch.cuda.Event()
        self._init_dummy_mm_items()

    def _make_buffer(self, *size: int, dtype: torch.dtype, numpy: bool = True) -> CpuGpuBuffer:
        return CpuGpuBuffer(*size, dtype=dtype, device=self.device, pin_memory=self.pin_memory, with_numpy=numpy)

    def _init_dummy_mm_items(self) -> None:
        # Inputs for the memory profiling run, made and moved once.
        self.dummy_items = [MultimodalItem.dummy_image(size) for size in self.config.profile_image_sizes]
        mm_utils._move_items_to_device(self.dummy_items, self.device)  # expect-not: HTD101

    # -- per step ------------------------------------------------------------------------------
    def _update_states(self, scheduler_output: SchedulerOutput) -> list[torch.Tensor]:
        new = scheduler_output.new_requests
        for request in new:
            self.requests[request.request_id] = request
        return [torch.tensor(r.stop_token_ids).cuda() for r in new]  # expect: HTD101

    def _prepare_inputs(self, scheduler_output: SchedulerOutput) -> tuple[torch.Tensor, torch.Tensor]:
        n = scheduler_output.total_num_tokens
        num_reqs = scheduler_output.num_reqs
        self.input_ids.np[:n] = scheduler_output.token_ids
        self.positions.np[:n] = scheduler_output.positions
        self.query_start_loc.np[: num_reqs + 1] = scheduler_output.query_start_loc
        self.input_ids.copy_to_gpu(n)
        self.positions.copy_to_gpu(n)
        self.query_start_loc.copy_to_gpu(num_reqs + 1)

        # Computed on the host: a fresh numpy array, in pageable memory.
        seq_lens = scheduler_output.num_computed_tokens + np.diff(scheduler_output.query_start_loc)
        self.seq_lens[:num_reqs].copy_(torch.from_numpy(seq_lens), non_blocking=True)  # expect: HTD102

        if self.uses_mrope:
            self.mrope_positions.np[:, :n] = scheduler_output.mrope_positions
            self.mrope_positions.gpu[:, :n].copy_(self.mrope_positions.cpu[:, :n], non_blocking=True)  # expect: HTD103
            positions = self.mrope_positions.gpu[:, :n]
        else:
            positions = self.positions.gpu[:n]
        return self.input_ids.gpu[:n], positions

    def _prepare_graph_inputs(self, num_reqs: int) -> None:
        # Static inputs of the captured CUDA graph: device to device.
        self.graph_seq_lens[:num_reqs].copy_(self.seq_lens[:num_reqs], non_blocking=True)  # expect-not: HTD102
        # A numpy view of the pinned half of a buffer pair is pinned memory too.
        qsl = torch.from_numpy(self.query_start_loc.np[: num_reqs + 1])
        self.graph_query_start_loc[: num_reqs + 1].copy_(qsl, non_blocking=True)  # expect-not: HTD102

    def _prepare_sampling(self, scheduler_output: SchedulerOutput) -> SamplingMetadata:
        num_reqs = scheduler_output.num_reqs
        self.temperature.np[:num_reqs] = scheduler_output.temperatures
        self.temperature.gpu[:num_reqs].copy_(self.temperature.cpu[:num_reqs])  # expect: HTD105
        return SamplingMetadata(
            temperature=self.temperature.gpu[:num_reqs],
            bad_words_mask=self.bad_words_mask[:num_reqs],
            req_ids=list(scheduler_output.request_ids),
        )

    def _execute_mm_encoder(self, scheduler_output: SchedulerOutput) -> torch.Tensor | None:
        requests = [self.requests[rid].mm_request for rid in scheduler_output.encoder_inputs]
        requests = [r for r in requests if r is not None]
        if not requests:
            return None
        items = [item for r in requests for item in r.mm_items]
        if all(item.modality == "image" for item in items):
            features = to_device_each([item.feature for item in items], self.device)  # expect: HTD101
            pixel_values = torch.cat(features)
            grids = [item.grid_thw for item in items]
            grid_thw = torch.tensor(grids, dtype=torch.int64).to(self.device, non_blocking=True)  # expect: HTD102
            return torch.cat(self.model.get_image_embeddings(pixel_values, grid_thw))
        for request in requests:
            mm_utils._move_items_to_device(request.mm_items, self.device)  # expect: HTD101
        embeds = embeddings_per_request(requests, self._encode_items, self.device)
        return torch.cat(embeds)

    def _encode_items(self, items: list[MultimodalItem]) -> torch.Tensor:
        pixel_values = torch.cat([item.feature for item in items])
        grid_thw = torch.tensor([item.grid_thw for item in items], device=self.device)  # expect: HTD106
        return torch.cat(self.model.get_video_embeddings(pixel_values, grid_thw))

    def execute_model(self, scheduler_output: SchedulerOutput) -> list[list[int]]:
        stop_ids = self._update_states(scheduler_output)
        input_ids, positions = self._prepare_inputs(scheduler_output)
        mm_embeds = self._execute_mm_encoder(scheduler_output)
        hidden_states = self.model(input_ids, positions, mm_embeds)
        query_start_loc = self.query_start_loc.gpu[: scheduler_output.num_reqs + 1]
        logits = self.model.compute_logits(hidden_states[query_start_loc[1:] - 1])
        metadata = self._prepare_sampling(scheduler_output)
        sampled = self.sampler(logits, metadata, stop_ids)
        # Read back into pinned memory; the event says when the rows are there.
        sampled_cpu = sampled.to("cpu", non_blocking=True)
        self.transfer_event.record()
        self.transfer_event.synchronize()
        return [[int(sampled_cpu[i].item())] for i in range(scheduler_output.num_reqs)]  # expect-not: HTD201

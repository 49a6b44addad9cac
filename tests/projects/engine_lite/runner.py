"""The model runner: host plans in, device inputs out, sampled ids back."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn

from engine_lite.attn_metadata import CommonMetadata, FlashMetadataBuilder
from engine_lite.lora import LoRAManager
from engine_lite.scheduler import StepPlan
from engine_lite.spec_decode import DraftProposer
from engine_lite.staging import StagedTensor, pinned_zeros


class ModelRunner:
    def __init__(self, model: nn.Module, max_reqs: int, device: torch.device) -> None:
        self.model = model
        self.device = device
        self.seq_lens = StagedTensor(max_reqs, torch.int32, device)
        self.positions_host = pinned_zeros(max_reqs, torch.int64)
        self.builder = FlashMetadataBuilder(device)
        self.lora = LoRAManager(device)
        self.proposer = DraftProposer(4, device)
        self.sampled_host = torch.zeros(max_reqs, dtype=torch.int64, pin_memory=True)
        self.copy_event = torch.cuda.Event()
        # Run once: a device constant built from a Python list.
        self.stop_ids = torch.tensor([0, 1, 2], device=device)  # expect-not: HTD106, HTD107

    def _prepare_inputs(self, plan: StepPlan) -> CommonMetadata:
        n = len(plan.req_ids)
        self.seq_lens.host[:n] = torch.from_numpy(plan.num_tokens)
        seq_lens = self.seq_lens.upload(n)
        positions = self.positions_host[:n].to(self.device)  # expect: HTD105
        qsl = torch.tensor(np.cumsum([0, *plan.num_tokens]), device=self.device)  # expect: HTD106
        seq_lens_cpu = self.seq_lens.host[:n]
        return CommonMetadata(qsl, seq_lens + positions, seq_lens_cpu, int(plan.num_tokens.max()))

    def execute_model(self, plan: StepPlan) -> list[list[int]]:
        common = self._prepare_inputs(plan)
        meta = self.builder.build(common)
        lora_mapping = self.lora.set_active_loras(plan.lora_ids, plan.num_tokens.tolist())  # expect-not: HTD202
        logits = self.model(common.query_start_loc, meta, lora_mapping)
        sampled = logits.argmax(dim=-1)
        num_reqs = len(plan.req_ids)
        valid = sampled[sampled >= 0]  # expect: HTD202
        total = valid.sum().item()  # expect: HTD202
        ids = sampled.tolist()  # expect: HTD202
        # The look-alike: a pinned copy, and an event to wait on before the host reads it.
        self.sampled_host[:num_reqs].copy_(sampled[:num_reqs], non_blocking=True)
        self.copy_event.record()
        self.copy_event.synchronize()
        host_ids = self.sampled_host[:num_reqs].tolist()  # expect-not: HTD202
        return [[t] for t in host_ids] if total else [ids]

    def execute_draft(self, target_logits: torch.Tensor, accepted: torch.Tensor) -> list[list[int]]:
        return self.proposer.propose(target_logits, accepted)

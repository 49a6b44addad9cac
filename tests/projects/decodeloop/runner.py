"""The model runner: per-step inputs, the model, the sampler, tokens back to the host."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn

from decodeloop.features import move_features
from decodeloop.metadata import build_step_meta
from decodeloop.sampler import Sampler
from decodeloop.staging import StagedTensor


class ModelRunner:
    def __init__(self, model: nn.Module, max_tokens: int, device: torch.device) -> None:
        self.model = model
        self.device = device
        self.input_ids = StagedTensor(max_tokens, torch.int64, device)
        self.sampler = Sampler(32000, device)
        self.one = torch.tensor(1.0, device=device)  # expect-not: HTD107

    def execute_model(self, batch) -> torch.Tensor:
        n = len(batch.token_ids)
        # persistent pinned staging, written in place and copied without blocking
        self.input_ids.host[:n].copy_(torch.from_numpy(np.asarray(batch.token_ids)))  # expect-not: HTD102, HTD106
        input_ids = self.input_ids.upload(n)
        meta = build_step_meta(batch, self.device)
        move_features(batch.mm_items, self.device)  # expect: HTD101
        # per-request features moved one at a time
        for req in batch.requests:
            req.embeds = req.embeds.to(self.device, non_blocking=True)  # expect: HTD101
        positions = torch.tensor(batch.positions, device=self.device)  # expect: HTD106
        hidden = self.model(input_ids, positions, meta)
        # device-to-device: the model's outputs are already on the device
        parts = [h.to(self.device) for h in hidden.split(1)]  # expect-not: HTD101
        logits = torch.cat(parts)
        tokens = self.sampler(logits, batch.requests)
        # read back without blocking: PyTorch makes the result pinned
        return tokens.to("cpu", non_blocking=True)  # expect-not: HTD102

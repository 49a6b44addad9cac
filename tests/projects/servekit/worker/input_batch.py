"""The persistent batch: per-request state kept across steps in host arrays and host/device
tensor pairs (made by servekit.utils.paired), updated in place as requests come and go."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from servekit.utils.paired import paired_zeros
from servekit.worker.block_table import BlockTable


@dataclass
class SamplingParams:
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    min_tokens: int = 0
    stop_token_ids: list[int] = field(default_factory=list)
    allowed_token_ids: list[int] | None = None


@dataclass
class CachedRequestState:
    req_id: str
    prompt_token_ids: list[int]
    sampling: SamplingParams
    block_ids: list[int]
    output_token_ids: list[int] = field(default_factory=list)
    mm_features: list[dict[str, torch.Tensor]] = field(default_factory=list)
    image_grid_thw: list[list[int]] = field(default_factory=list)


class InputBatch:
    def __init__(self, max_num_reqs: int, max_model_len: int, max_num_tokens: int, vocab_size: int, device: torch.device) -> None:
        self.device = device
        self.req_ids: list[str] = []
        self.token_ids_cpu = np.zeros((max_num_reqs, max_model_len), dtype=np.int32)
        self.num_tokens = np.zeros(max_num_reqs, dtype=np.int32)
        self.input_ids = paired_zeros(max_num_tokens, dtype=torch.int32, device=device)
        self.positions = paired_zeros(max_num_tokens, dtype=torch.int64, device=device)
        # Three rows (t, h, w); the extra column keeps each row apart from the next.
        self.mrope_positions = paired_zeros(3, max_num_tokens + 1, dtype=torch.int64, device=device)
        self.temperature = paired_zeros(max_num_reqs, dtype=torch.float32, device=device)
        self.top_k_cpu = torch.zeros(max_num_reqs, dtype=torch.int32)
        self.top_k = torch.zeros(max_num_reqs, dtype=torch.int32, device=device)
        self.top_p = torch.ones(max_num_reqs, dtype=torch.float32, device=device)
        self.penalties = torch.ones(max_num_reqs, dtype=torch.float32, device=device)
        self.penalties_host = torch.ones(max_num_reqs, dtype=torch.float32, pin_memory=True)
        self.allowed_token_ids_mask = torch.zeros(max_num_reqs, vocab_size, dtype=torch.bool, device=device)
        self.block_table = BlockTable(max_num_reqs, max_model_len // 16, max_num_tokens, 16, device)
        self.min_tokens: dict[int, tuple[int, list[int]]] = {}

    def add_request(self, req: CachedRequestState, row: int) -> None:
        n = len(req.prompt_token_ids)
        self.token_ids_cpu[row, :n] = req.prompt_token_ids  # expect-not: HTD202
        self.num_tokens[row] = n
        self.temperature.np[row] = req.sampling.temperature
        self.top_k_cpu[row] = req.sampling.top_k  # expect-not: HTD202
        self.block_table.append_row(req.block_ids, row)
        if req.sampling.min_tokens:
            self.min_tokens[row] = (req.sampling.min_tokens, req.sampling.stop_token_ids)
        if req.sampling.allowed_token_ids:
            self.allowed_token_ids_mask[row, req.sampling.allowed_token_ids] = True  # expect: HTD202

    def prepare_inputs(self, num_reqs: int, total: int, req_indices: np.ndarray, positions_np: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        # Token ids gathered on the host with numpy, into the pinned half.
        flat = positions_np + req_indices * self.token_ids_cpu.shape[1]
        np.take(self.token_ids_cpu.ravel(), flat, out=self.input_ids.np[:total])
        self.input_ids.copy_prefix(total)
        self.positions.np[:total] = positions_np
        self.positions.gpu[:total].copy_(self.positions.cpu[:total], non_blocking=True)  # expect-not: HTD102, HTD103
        self.block_table.compute_slot_mapping(req_indices, positions_np)
        self.block_table.commit(num_reqs, total)
        return self.input_ids.gpu[:total], self.positions.gpu[:total]

    def prepare_mrope_positions(self, total: int, mrope_np: np.ndarray) -> torch.Tensor:
        self.mrope_positions.np[:, :total] = mrope_np
        self.mrope_positions.gpu[:, :total].copy_(self.mrope_positions.cpu[:, :total], non_blocking=True)  # expect: HTD103
        return self.mrope_positions.gpu[:, :total]

    def refresh_sampling(self, num_reqs: int, top_p: list[float]) -> None:
        self.temperature.copy_prefix(num_reqs)
        # A CPU tensor made without pin_memory: non_blocking does not help.
        self.top_k[:num_reqs].copy_(self.top_k_cpu[:num_reqs], non_blocking=True)  # expect: HTD102
        self.top_p[:num_reqs] = torch.tensor(top_p, device=self.device)  # expect: HTD106
        self.refresh_penalties(num_reqs, [1.0] * num_reqs)

    def refresh_penalties(self, num_reqs: int, penalties: list[float]) -> None:
        # From the requests' Python floats straight into the device tensor: a blocking copy.
        self.penalties[:num_reqs] = torch.tensor(penalties, dtype=torch.float32)  # expect: HTD106
        # Into the pinned host half instead, then one copy that does not block.
        self.penalties_host[:num_reqs] = torch.tensor(penalties, dtype=torch.float32)  # expect-not: HTD106; allow: HTD402
        self.penalties[:num_reqs].copy_(self.penalties_host[:num_reqs], non_blocking=True)  # expect-not: HTD102, HTD105

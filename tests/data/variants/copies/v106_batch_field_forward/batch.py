from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ForwardBatch:
    positions: list[int]
    req_pool_indices: list[int]

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RunningReq:
    rid: str
    num_computed: int
    num_new: int

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class Req:
    prompt_ids: torch.Tensor
    output_ids: list[int]

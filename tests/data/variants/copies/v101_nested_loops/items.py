from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class MMItem:
    modality: str
    feature: torch.Tensor | None = None


@dataclass
class MMRequest:
    rid: str
    items: list[MMItem] = field(default_factory=list)

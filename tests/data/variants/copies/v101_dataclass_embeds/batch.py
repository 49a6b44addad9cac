from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class PromptEmbeds:
    rid: str
    embeds: torch.Tensor
    start: int

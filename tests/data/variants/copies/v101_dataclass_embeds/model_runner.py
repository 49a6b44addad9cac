from __future__ import annotations

import torch

from v101_dataclass_embeds.batch import PromptEmbeds


class ModelRunner:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def _prepare_prompt_embeds(self, entries: list[PromptEmbeds]) -> None:
        for entry in entries:
            entry.embeds = entry.embeds.to(self.device)  # expect: HTD101

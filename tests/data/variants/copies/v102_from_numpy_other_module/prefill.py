from __future__ import annotations

import torch

from v102_from_numpy_other_module.tokenize_io import pack_token_ids


class PrefillRunner:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def prepare(self, prompts: list[list[int]]) -> torch.Tensor:
        flat = pack_token_ids(prompts)
        return torch.from_numpy(flat).to(self.device, non_blocking=True)  # expect: HTD102

    def prepare_pinned(self, prompts: list[list[int]]) -> torch.Tensor:
        flat = pack_token_ids(prompts)
        return torch.from_numpy(flat).pin_memory().to(self.device, non_blocking=True)  # expect-not: HTD102

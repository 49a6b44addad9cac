from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class LoRAMapping:
    index_mapping: list[int]  # one adapter id per token (0: none)
    prompt_mapping: list[int]  # one adapter id per request


class PunicaWrapper:
    def __init__(self, max_num_batched_tokens: int, max_num_reqs: int, device: torch.device) -> None:
        self.device = device
        self.token_lora_indices = torch.full((max_num_batched_tokens,), -1, dtype=torch.long, device=device)
        self.sampler_indices = torch.full((max_num_reqs,), -1, dtype=torch.long, device=device)
        self.indices_host = torch.full((max_num_batched_tokens,), -1, dtype=torch.long, pin_memory=True)

    def update_metadata(self, mapping: LoRAMapping, slots: list[int | None]) -> None:
        """Per step: the adapter slot of each token, built on the device from a Python list."""
        index_mapping = [slots.index(x) if x > 0 else -1 for x in mapping.index_mapping]
        indices = torch.tensor(index_mapping, dtype=torch.long, device=self.device)  # expect: HTD106
        self.token_lora_indices[: len(index_mapping)].copy_(indices)
        sampler = [slots.index(x) if x > 0 else -1 for x in mapping.prompt_mapping]
        self.sampler_indices[: len(sampler)] = torch.tensor(sampler, device=self.device)  # expect: HTD106

    def update_metadata_pinned(self, mapping: LoRAMapping, slots: list[int | None]) -> None:
        n = len(mapping.index_mapping)
        self.indices_host[:n] = torch.tensor([slots.index(x) if x > 0 else -1 for x in mapping.index_mapping])  # expect-not: HTD106; allow: HTD402
        self.token_lora_indices[:n].copy_(self.indices_host[:n], non_blocking=True)  # expect-not: HTD102, HTD105

from __future__ import annotations

import torch


class LayerOffload:
    def __init__(self, heads: int, max_tokens: int, dim: int) -> None:
        self.host_k = torch.empty(heads, max_tokens, dim, pin_memory=True)

    def load(self, start: int, end: int, device: torch.device) -> torch.Tensor:
        return self.host_k[:, start:end].to(device, non_blocking=True)  # expect: HTD103

    def load_blocking(self, start: int, end: int, device: torch.device) -> torch.Tensor:
        return self.host_k[:, start:end].to(device)  # expect-not: HTD103

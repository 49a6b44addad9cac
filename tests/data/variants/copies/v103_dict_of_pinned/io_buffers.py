from __future__ import annotations

import torch


class IOBuffers:
    def __init__(self, max_tokens: int, device: torch.device) -> None:
        self.host = {
            "positions": torch.zeros(3, max_tokens + 1, dtype=torch.int64, pin_memory=True),
            "input_ids": torch.zeros(max_tokens, dtype=torch.int64, pin_memory=True),
        }
        self.dev = {k: torch.zeros_like(v, device=device) for k, v in self.host.items()}

    def commit(self, n: int) -> None:
        self.dev["positions"][:, :n].copy_(self.host["positions"][:, :n], non_blocking=True)  # expect: HTD103
        self.dev["input_ids"][:n].copy_(self.host["input_ids"][:n], non_blocking=True)  # expect-not: HTD102, HTD103

from __future__ import annotations

import torch


class HostDevicePair:
    def __init__(self, *shape: int, dtype: torch.dtype, device: torch.device) -> None:
        self.host = torch.zeros(*shape, dtype=dtype, pin_memory=True)
        self.dev = torch.zeros(*shape, dtype=dtype, device=device)

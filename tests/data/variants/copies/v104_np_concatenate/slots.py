from __future__ import annotations

import numpy as np
import torch


class SlotMapper:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def slot_mapping(self, per_req: list[np.ndarray]) -> torch.Tensor:
        joined = np.concatenate(per_req)
        return torch.from_numpy(joined).to(self.device, non_blocking=True)  # expect: HTD102; allow: HTD104

from __future__ import annotations

import numpy as np
import torch


class SeqMeta:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.seq_lens = torch.zeros(max_reqs, dtype=torch.int32, device=device)
        self.seq_lens_np = np.zeros(max_reqs, dtype=np.int32)

    def update(self, n: int) -> None:
        self.seq_lens[:n].copy_(torch.from_numpy(self.seq_lens_np[:n]), non_blocking=True)  # expect: HTD102

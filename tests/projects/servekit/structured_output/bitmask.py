from __future__ import annotations

import numpy as np
import torch


class GrammarBitmask:
    def __init__(self, max_num_reqs: int, vocab_size: int, device: torch.device) -> None:
        self.device = device
        words = (vocab_size + 31) // 32
        self.host = torch.zeros(max_num_reqs, words, dtype=torch.int32, pin_memory=True)
        self.dev = torch.zeros(max_num_reqs, words, dtype=torch.int32, device=device)

    def copy_per_request(self, bitmask: np.ndarray, rows: dict[str, int]) -> torch.Tensor:
        # One small copy per structured request.
        for req_id, row in rows.items():
            self.dev[row].copy_(torch.from_numpy(bitmask[row]), non_blocking=True)  # expect: HTD101; allow: HTD102
        return self.dev[: len(rows)]

    def copy_once(self, bitmask: np.ndarray, n: int) -> torch.Tensor:
        # The rows gathered into the pinned buffer on the host, then one asynchronous copy.
        # The previous step's copy out of the pinned buffer is done: the step ended in a sync.
        self.host[:n].copy_(torch.from_numpy(bitmask[:n]))  # expect-not: HTD101, HTD102; allow: HTD402
        self.dev[:n].copy_(self.host[:n], non_blocking=True)  # expect-not: HTD102, HTD103, HTD105
        return self.dev[:n]

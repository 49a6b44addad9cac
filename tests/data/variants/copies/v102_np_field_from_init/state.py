from __future__ import annotations

import numpy as np


class RequestState:
    def __init__(self, max_reqs: int) -> None:
        self.num_tokens = np.zeros(max_reqs, dtype=np.int32)
        self.seq_lens = np.zeros(max_reqs, dtype=np.int32)

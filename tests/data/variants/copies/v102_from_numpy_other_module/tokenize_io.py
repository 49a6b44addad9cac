from __future__ import annotations

import numpy as np


def pack_token_ids(prompts: list[list[int]]) -> np.ndarray:
    return np.concatenate([np.asarray(p, dtype=np.int64) for p in prompts])

"""A small serving-engine input path with the copy mistakes h2dlint finds.

Run `h2dlint examples/` to see them reported.
"""

import numpy as np
import torch


class InputBatch:
    def __init__(self, max_tokens: int, device: torch.device) -> None:
        self.device = device
        # Pinned once, reused every step: copies from here are truly asynchronous.
        self.positions_cpu = torch.zeros(max_tokens, dtype=torch.int64, pin_memory=True)
        self.positions = torch.zeros(max_tokens, dtype=torch.int64, device=device)

    def prepare(self, token_ids: list[list[int]], seq_lens: list[int]) -> torch.Tensor:
        # Flagged (HTD102): a fresh pageable tensor; non_blocking=True does not make it async.
        flat = torch.tensor([t for seq in token_ids for t in seq], dtype=torch.int64)
        input_ids = flat.to(self.device, non_blocking=True)

        # Flagged (HTD102): torch.cat makes a fresh pageable tensor too.
        lens = torch.cat([torch.tensor(seq_lens), torch.zeros(1, dtype=torch.int64)])
        lens_gpu = lens.to(self.device, non_blocking=True)

        # Fine: the source is the pinned buffer allocated in __init__.
        n = len(seq_lens)
        self.positions[:n].copy_(self.positions_cpu[:n], non_blocking=True)
        return input_ids + lens_gpu.sum()


def load_embeddings(path: str, device: str = "cuda") -> torch.Tensor:
    table = np.load(path)
    # Flagged (HTD102): from_numpy wraps pageable numpy memory.
    return torch.from_numpy(table).cuda(non_blocking=True)


def load_embeddings_pinned(path: str, device: str = "cuda") -> torch.Tensor:
    table = np.load(path)
    # Fine: pinned first (once, at load time), then copied asynchronously.
    return torch.from_numpy(table).pin_memory().cuda(non_blocking=True)

from __future__ import annotations

import torch


class ChunkLoader:
    def __init__(self, max_tokens: int, dim: int, device: torch.device) -> None:
        self.dev = torch.empty(max_tokens, dim, device=device)

    def load_chunks(self, chunks: list[torch.Tensor]) -> None:
        joined = torch.cat([torch.from_numpy(c.numpy()) for c in chunks], dim=0)  # expect: HTD104
        self.dev[: joined.shape[0]].copy_(joined, non_blocking=True)

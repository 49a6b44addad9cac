from __future__ import annotations

import torch
import torch.nn as nn

from v104_cat_positions.rope_index import positions_for_grid


class VisionRotary(nn.Module):
    def __init__(self, device: torch.device) -> None:
        super().__init__()
        self.device = device

    def forward(self, grids: list[tuple[int, int, int]]) -> torch.Tensor:
        pos_ids = [positions_for_grid(t, h, w) for t, h, w in grids]
        return torch.cat(pos_ids, dim=1).to(self.device, non_blocking=True)  # expect: HTD104

    def forward_out(self, grids: list[tuple[int, int, int]]) -> torch.Tensor:
        pos_ids = [positions_for_grid(t, h, w) for t, h, w in grids]
        n = sum(p.shape[1] for p in pos_ids)
        staged = torch.empty(3, n, dtype=torch.int64, pin_memory=True)
        return torch.cat(pos_ids, dim=1, out=staged).to(self.device, non_blocking=True)  # expect-not: HTD104, HTD102

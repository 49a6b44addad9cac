"""A small vision encoder step: patch embedding, a few MLP blocks, M-RoPE style positions."""

import torch
from buffers import CpuGpuBuffer
from preprocess import PATCH_DIM


class Encoder(torch.nn.Module):
    def __init__(self, hidden, layers, max_tokens, device):
        super().__init__()
        self.device = torch.device(device)
        self.embed = torch.nn.Linear(PATCH_DIM, hidden)
        self.blocks = torch.nn.ModuleList(
            torch.nn.Sequential(
                torch.nn.Linear(hidden, 2 * hidden), torch.nn.GELU(), torch.nn.Linear(2 * hidden, hidden)
            )
            for _ in range(layers)
        )
        # (3, max_tokens + 1): the host side is sliced [:, :n], a strided view.
        self.positions = CpuGpuBuffer(3, max_tokens + 1, dtype=torch.int64, device=device)
        self.row_positions = CpuGpuBuffer(3, max_tokens + 1, dtype=torch.int64, device=device)
        pin = self.device.type == "cuda"
        self.pinned_pos = torch.empty(max_tokens, 2, dtype=torch.int64, pin_memory=pin)

    def load_positions(self, n):
        # Mistake: a strided view of the pinned buffer is staged through pageable memory.
        self.positions.gpu[:, :n].copy_(self.positions.cpu[:, :n], non_blocking=True)
        # Correct: each row of the pinned buffer is contiguous.
        for row in range(self.row_positions.gpu.shape[0]):
            self.row_positions.gpu[row, :n].copy_(self.row_positions.cpu[row, :n], non_blocking=True)
        return self.positions.gpu[:, :n]

    def position_ids(self, grids):
        pos_ids = [torch.stack(torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij"), -1).reshape(-1, 2) for _, h, w in grids]
        # Mistake: torch.cat makes a fresh pageable tensor, then it is copied.
        staged = torch.cat(pos_ids).to(self.device, non_blocking=True)
        # Correct: cat into the pinned buffer, then copy.
        n = sum(p.shape[0] for p in pos_ids)
        pinned = torch.cat(pos_ids, out=self.pinned_pos[:n]).to(self.device, non_blocking=True)
        return staged, pinned

    def forward(self, features, positions):
        x = self.embed(features)
        for block in self.blocks:
            x = x + block(x)
        return x.mean(dim=0) + positions.float().mean()

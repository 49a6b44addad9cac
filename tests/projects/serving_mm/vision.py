"""Vision encoders: patches of images and video frames to embeddings of merged tokens."""

from __future__ import annotations

import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F

from serving_mm.config import VisionConfig


class VisionRotaryEmbedding(nn.Module):
    def __init__(
        self,
        dim: int,
        max_positions: int,
        device: torch.device | str | None = None,
        theta: float = 10000.0,
    ) -> None:
        super().__init__()
        self.device = torch.device(device or "cuda")
        target_device = self.device
        # Everything allocated in this block is on the target device.
        with target_device:
            inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))
            seq = torch.arange(max_positions, dtype=torch.float)
            self.freq_table = torch.outer(seq, inv_freq)

    def forward(self, max_grid_size: int) -> torch.Tensor:
        # The module may have been moved after construction; keep the table on its device.
        return self.freq_table[:max_grid_size].to(self.device, non_blocking=True)  # expect-not: HTD102, HTD103


class PatchEmbed(nn.Module):
    def __init__(self, config: VisionConfig) -> None:
        super().__init__()
        kernel = (config.temporal_patch_size, config.patch_size, config.patch_size)
        self.proj = nn.Conv3d(3, config.hidden_size, kernel_size=kernel, stride=kernel, bias=False)
        self.kernel = kernel
        self.hidden_size = config.hidden_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.view(-1, 3, *self.kernel)
        return self.proj(x).view(-1, self.hidden_size)


class PatchMerger(nn.Module):
    def __init__(self, config: VisionConfig) -> None:
        super().__init__()
        width = config.hidden_size * config.spatial_merge_size**2
        self.width = width
        self.norm = nn.LayerNorm(config.hidden_size)
        self.mlp = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, config.out_hidden_size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.norm(x).view(-1, self.width))


class VisionBlock(nn.Module):
    def __init__(self, config: VisionConfig) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(config.hidden_size)
        self.norm2 = nn.LayerNorm(config.hidden_size)
        self.qkv = nn.Linear(config.hidden_size, 3 * config.hidden_size)
        self.proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.mlp = nn.Sequential(
            nn.Linear(config.hidden_size, 4 * config.hidden_size),
            nn.GELU(),
            nn.Linear(4 * config.hidden_size, config.hidden_size),
        )
        self.num_heads = config.num_heads

    def forward(self, x: torch.Tensor, cu_seqlens: torch.Tensor, rotary: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        # (varlen attention over cu_seqlens elided: dense attention per packed sequence)
        attn = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        x = x + self.proj(attn)
        return x + self.mlp(self.norm2(x))


class VisionTransformer(nn.Module):
    """The encoder of the first model family: windowed attention over packed images."""

    def __init__(self, config: VisionConfig, device: torch.device) -> None:
        super().__init__()
        self.config = config
        self.device = device
        self.dtype = torch.bfloat16
        self.merge_size = config.spatial_merge_size
        head_dim = config.hidden_size // config.num_heads
        self.patch_embed = PatchEmbed(config)
        self.rotary = VisionRotaryEmbedding(head_dim // 2, max_positions=8192, device=device)
        self.blocks = nn.ModuleList(VisionBlock(config) for _ in range(config.depth))
        self.merger = PatchMerger(config)

    def rot_pos_emb(self, grid_thw: torch.Tensor) -> torch.Tensor:
        m = self.merge_size
        pos_ids = []
        for t, h, w in grid_thw.tolist():  # expect: HTD202?; expect-not: HTD201
            hpos = torch.arange(h).unsqueeze(1).expand(-1, w)
            hpos = hpos.reshape(h // m, m, w // m, m).permute(0, 2, 1, 3).flatten()
            wpos = torch.arange(w).unsqueeze(0).expand(h, -1)
            wpos = wpos.reshape(h // m, m, w // m, m).permute(0, 2, 1, 3).flatten()
            pos_ids.append(torch.stack([hpos, wpos], dim=-1).repeat(t, 1))
        max_grid_size = int(grid_thw[:, 1:].max())  # expect: HTD202?
        pos = torch.cat(pos_ids, dim=0).to(self.device, non_blocking=True)  # expect: HTD104
        return self.rotary(max_grid_size)[pos].flatten(1)

    def cu_seqlens(self, grid_thw: torch.Tensor) -> torch.Tensor:
        lengths: list[int] = []
        for grid in grid_thw:
            n = int(torch.prod(grid).item())  # expect: HTD201
            frames = int(grid[0].item())  # expect: HTD201
            lengths.extend([n // frames] * frames)
        cu = torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32)
        return cu.to(self.device, non_blocking=True)  # expect: HTD102

    def window_index(self, grid_thw: torch.Tensor) -> torch.Tensor:
        m = self.merge_size
        window = self.config.window_size // m // self.config.patch_size
        index: list[torch.Tensor] = []
        offset = 0
        for i in range(grid_thw.shape[0]):
            t, h, w = grid_thw[i].tolist()  # expect: HTD201
            llm_h, llm_w = h // m, w // m
            ids = torch.arange(t * llm_h * llm_w, device=self.device).reshape(t, llm_h, llm_w)
            pad_h = (window - llm_h % window) % window
            pad_w = (window - llm_w % window) % window
            ids = F.pad(ids, (0, pad_w, 0, pad_h), value=-1)
            ids = ids.reshape(t, (llm_h + pad_h) // window, window, (llm_w + pad_w) // window, window)
            ids = ids.permute(0, 1, 3, 2, 4).reshape(-1)
            index.append(ids[ids != -1] + offset)  # allow: HTD202
            offset += t * llm_h * llm_w
        return torch.cat(index)

    def forward(self, x: torch.Tensor, grid_thw: torch.Tensor) -> torch.Tensor:
        x = x.to(device=self.device, dtype=self.dtype)
        x = self.patch_embed(x)
        rotary = self.rot_pos_emb(grid_thw)
        cu_seqlens = self.cu_seqlens(grid_thw)
        order = self.window_index(grid_thw)
        x = x[order]
        for block in self.blocks:
            x = block(x, cu_seqlens, rotary)
        return self.merger(x)[torch.argsort(order)]


class PackedVisionTransformer(VisionTransformer):
    """The encoder of the second model family: full attention, positions staged in pinned
    memory, one read of the grid per call."""

    def pos_ids_pinned(self, grid_rows: list[list[int]]) -> torch.Tensor:
        m = self.merge_size
        pos_ids = []
        for t, h, w in grid_rows:
            hpos = torch.arange(h).unsqueeze(1).expand(-1, w)
            hpos = hpos.reshape(h // m, m, w // m, m).permute(0, 2, 1, 3).flatten()
            wpos = torch.arange(w).unsqueeze(0).expand(h, -1)
            wpos = wpos.reshape(h // m, m, w // m, m).permute(0, 2, 1, 3).flatten()
            pos_ids.append(torch.stack([hpos, wpos], dim=-1).repeat(t, 1))
        num_pos = sum(p.shape[0] for p in pos_ids)
        pinned = torch.empty((num_pos, pos_ids[0].shape[1]), dtype=pos_ids[0].dtype, pin_memory=True)
        return torch.cat(pos_ids, dim=0, out=pinned).to(self.device, non_blocking=True)  # expect-not: HTD102, HTD104

    def forward(self, x: torch.Tensor, grid_thw: torch.Tensor) -> torch.Tensor:
        # Callers may pass the pixels on the host or already on the device.
        x = x.to(device=self.device, dtype=self.dtype, non_blocking=True)  # expect-not: HTD102
        x = self.patch_embed(x)
        grid_rows = grid_thw.tolist()  # expect: HTD202?
        pos = self.pos_ids_pinned(grid_rows)
        max_grid_size = max(max(h, w) for _, h, w in grid_rows)
        rotary = self.rotary(max_grid_size)[pos].flatten(1)
        total = sum(t for t, _, _ in grid_rows)
        # output_size tells torch the result's length: no read of the repeats on the host.
        lengths = torch.repeat_interleave(grid_thw[:, 1] * grid_thw[:, 2], grid_thw[:, 0], output_size=total)  # expect-not: HTD202
        cu_seqlens = F.pad(lengths.cumsum(0, dtype=torch.int32), (1, 0))
        for block in self.blocks:
            x = block(x, cu_seqlens, rotary)
        return self.merger(x)

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class VisionConfig:
    patch_size: int = 14
    temporal_patch_size: int = 2
    spatial_merge_size: int = 2
    hidden_size: int = 1280
    num_heads: int = 16
    depth: int = 32
    window_size: int = 112
    out_hidden_size: int = 3584
    min_image_tokens: int = 4


@dataclass(frozen=True)
class EngineConfig:
    vocab_size: int = 152064
    max_num_batched_tokens: int = 8192
    max_num_seqs: int = 256
    uses_mrope: bool = True
    image_token_id: int = 151655
    num_speculative_tokens: int = 0
    vision: VisionConfig = field(default_factory=VisionConfig)
    profile_image_sizes: tuple[int, ...] = (224, 448)
    default_stop_token_ids: tuple[tuple[int, ...], ...] = ((151643,), (151645,))

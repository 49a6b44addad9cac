"""Multimodal inputs: the items a request carries, and their trip to the encoder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

EmbedFn = Callable[[list["MultimodalItem"]], torch.Tensor]


@dataclass
class MultimodalItem:
    modality: str
    # Pixel values or audio features as the processor made them (host memory), or None when
    # the request carries a precomputed embedding instead.
    feature: torch.Tensor | np.ndarray | None = None
    precomputed_embedding: torch.Tensor | None = None
    grid_thw: tuple[int, int, int] = (1, 1, 1)
    offset: int = 0

    @classmethod
    def dummy_image(cls, size: int, patch_size: int = 14) -> MultimodalItem:
        h = w = size // patch_size
        return cls("image", feature=torch.zeros(h * w, 3 * 2 * patch_size**2), grid_thw=(1, h, w))


@dataclass
class MultimodalRequest:
    request_id: str
    mm_items: list[MultimodalItem] = field(default_factory=list)
    cached_embedding: torch.Tensor | None = None


def _move_items_to_device(items: list[MultimodalItem], device: torch.device) -> None:
    for item in items:
        if isinstance(item.feature, torch.Tensor):
            item.feature = item.feature.to(device, non_blocking=True)  # expect: HTD101; allow: HTD102


def move_to_device(obj: Any, device: torch.device) -> Any:
    """Moves every tensor of a nested structure of keyword arguments, keeping its shape."""
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=True)  # expect-not: HTD101, HTD102
    if isinstance(obj, dict):
        return {k: move_to_device(v, device) for k, v in obj.items()}  # expect-not: HTD101
    if isinstance(obj, (list, tuple)):
        return type(obj)(move_to_device(v, device) for v in obj)  # expect-not: HTD101
    return obj


def embeddings_per_request(
    requests: list[MultimodalRequest], embed_fn: EmbedFn, device: torch.device
) -> list[torch.Tensor]:
    """Runs the encoder on each request's items that were not encoded yet (once per step)."""
    embeddings: list[torch.Tensor] = []
    for request in requests:
        embedding = request.cached_embedding
        if embedding is None:
            _move_items_to_device(request.mm_items, device)  # expect: HTD101
            embedding = embed_fn(request.mm_items)
            request.cached_embedding = embedding
        embeddings.append(embedding)
    return embeddings


def patches_per_item(items: list[MultimodalItem], merge_size: int) -> list[int]:
    # The grid is built on the host from Python tuples: reading its rows does not sync.
    grid = torch.tensor([item.grid_thw for item in items], dtype=torch.int64)
    counts = []
    for row in grid:  # expect-not: HTD201
        counts.append(int(torch.prod(row)) // merge_size**2)
    return counts


def tokens_per_item(
    image_grid_thw: torch.Tensor | list[tuple[int, int, int]], merge_size: int
) -> list[int]:
    if isinstance(image_grid_thw, torch.Tensor):
        # One vectorised product and one read for all the rows.
        return (torch.prod(image_grid_thw, dim=-1) // merge_size**2).tolist()  # expect: HTD202?; expect-not: HTD201
    return [int(np.prod(grid)) // merge_size**2 for grid in image_grid_thw]  # expect-not: HTD201

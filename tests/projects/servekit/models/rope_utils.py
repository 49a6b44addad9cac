"""Rotary position helpers of the vision-language model."""

from __future__ import annotations

import numpy as np
import torch


def get_rope_index(input_ids: torch.Tensor, image_grid_thw: torch.Tensor, image_token_id: int, merge: int) -> torch.Tensor:
    """3-D (t, h, w) positions of one sequence whose images are described by image_grid_thw."""
    image_starts = torch.nonzero(input_ids == image_token_id).squeeze(1)  # expect: HTD202
    pieces = []
    st = 0
    for i in range(image_grid_thw.shape[0]):
        t = image_grid_thw[i, 0].item()  # expect: HTD201
        h = image_grid_thw[i, 1].item() // merge  # expect: HTD201
        w = image_grid_thw[i, 2].item() // merge  # expect: HTD201
        pieces.append(torch.arange(st, st + t * h * w, device=input_ids.device).expand(3, -1))
        st += t * h * w
    text_len = input_ids.shape[0] - st
    frames = position_range(image_grid_thw[:, 0].max(), input_ids.device)
    pieces.append(torch.arange(st, st + text_len, device=input_ids.device).expand(3, -1))
    return torch.cat(pieces, dim=1), image_starts + frames.numel()


def get_rope_index_host(input_tokens: list[int], image_grid_thw: list[list[int]], image_token_id: int, merge: int) -> np.ndarray:
    # The same from the request's Python lists, on the host: no device tensor is read.
    pieces = []
    st = 0
    for t, h, w in image_grid_thw:  # expect-not: HTD201
        n = t * (h // merge) * (w // merge)
        pieces.append(np.broadcast_to(np.arange(st, st + n), (3, n)))
        st += n
    pieces.append(np.broadcast_to(np.arange(st, len(input_tokens)), (3, len(input_tokens) - st)))
    return np.concatenate(pieces, axis=1)


def position_range(num_frames: torch.Tensor, device: torch.device) -> torch.Tensor:
    return torch.arange(num_frames.item(), device=device)  # expect: HTD202

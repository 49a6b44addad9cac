from __future__ import annotations

import torch


def prepare_videos(
    frames: list[torch.Tensor], grids: list[torch.Tensor], device: torch.device
) -> list[torch.Tensor]:
    for i, (clip, _grid) in enumerate(zip(frames, grids)):
        frames[i] = clip.cuda(device)  # expect: HTD101
    return frames


def frame_counts(frames: list[torch.Tensor]) -> list[int]:
    return [int(clip.shape[0]) for clip in frames]  # expect-not: HTD101

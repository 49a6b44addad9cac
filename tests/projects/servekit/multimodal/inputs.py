from __future__ import annotations

import torch


def group_pixel_values(features: list[dict[str, torch.Tensor]], device: torch.device) -> torch.Tensor:
    """The pixel values of a request's images, in one tensor on the device (called per request)."""
    return torch.cat([f["pixel_values"].to(device, non_blocking=True) for f in features])  # expect: HTD101; allow: HTD102


def group_pixel_values_once(features: list[dict[str, torch.Tensor]], device: torch.device) -> torch.Tensor:
    # Joined on the host into pinned memory, then one asynchronous copy.
    pixels = [f["pixel_values"] for f in features]
    staged = torch.empty((sum(p.shape[0] for p in pixels), pixels[0].shape[1]), dtype=pixels[0].dtype, pin_memory=True)
    return torch.cat(pixels, out=staged).to(device, non_blocking=True)  # expect-not: HTD101, HTD102, HTD104


def grid_rows(features: list[dict[str, torch.Tensor]]) -> torch.Tensor:
    return torch.cat([f["image_grid_thw"] for f in features])

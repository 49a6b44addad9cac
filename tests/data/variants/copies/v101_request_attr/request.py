"""What the scheduler hands the runner for one multimodal request."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class VisionRequest:
    request_id: str
    pixel_values: torch.Tensor  # made by the image processor, in host memory
    image_grid: tuple[int, int, int]

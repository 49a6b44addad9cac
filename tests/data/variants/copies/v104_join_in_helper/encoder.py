from __future__ import annotations

import torch

from v104_join_in_helper.collate import collate_pixels


class ImageEncoder:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def encode(self, images: list[torch.Tensor]) -> torch.Tensor:
        return collate_pixels(images).to(self.device, non_blocking=True)  # expect: HTD104; allow: HTD102

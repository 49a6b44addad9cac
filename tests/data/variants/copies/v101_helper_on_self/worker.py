from __future__ import annotations

import torch

from v101_helper_on_self.stager import InputStager


class Worker:
    def __init__(self, device: torch.device) -> None:
        self.stager = InputStager(device)

    def prepare(self, images: list[torch.Tensor]) -> list[torch.Tensor]:
        staged = []
        for image in images:
            staged.append(self.stager.stage(image))  # expect: HTD101
        return staged

from __future__ import annotations

import torch
import torch.nn as nn

from v101_request_attr.request import VisionRequest


class EncoderRunner:
    def __init__(self, encoder: nn.Module, device: torch.device) -> None:
        self.encoder = encoder
        self.device = device

    def execute_encoder(self, requests: list[VisionRequest]) -> torch.Tensor:
        pixels = []
        for req in requests:
            pixels.append(req.pixel_values.to(self.device, non_blocking=True))  # expect: HTD101
        return self.encoder(torch.cat(pixels))

    def encode_each(self, requests: list[VisionRequest]) -> list[torch.Tensor]:
        # Other work per request: the encoder runs on each one (not a pure transfer loop).
        outs = []
        for req in requests:
            x = req.pixel_values.to(self.device)  # expect-not: HTD101
            outs.append(self.encoder(x))
        return outs

from __future__ import annotations

import torch


class AudioFeatureMover:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def __call__(self, features: list[torch.Tensor]) -> list[torch.Tensor]:
        return list(map(lambda f: f.to(self.device, non_blocking=True), features))  # expect: HTD101

    def cast(self, features: list[torch.Tensor]) -> list[torch.Tensor]:
        return list(map(lambda f: f.to(torch.float16), features))  # expect-not: HTD101

from __future__ import annotations

import torch

from v101_helper_from_import.utils.transfer import move_feature


class MMRunner:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def gather_features(self, features: list[torch.Tensor]) -> list[torch.Tensor]:
        moved = []
        for feat in features:
            moved.append(move_feature(feat, self.device))  # expect: HTD101
        return moved

    def gather_one(self, feature: torch.Tensor) -> torch.Tensor:
        return move_feature(feature, self.device)  # expect-not: HTD101

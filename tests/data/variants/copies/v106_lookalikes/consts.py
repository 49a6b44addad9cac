from __future__ import annotations

import torch


class Scaler:
    def __init__(self, stop_ids: list[int], device: torch.device) -> None:
        self.device = device
        # Once, at start-up.
        self.stop_ids = torch.tensor(stop_ids, device=device)  # expect-not: HTD106

    def scale(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.tensor(0.5, device=self.device)  # expect-not: HTD106

    def passthrough(self, probs: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(probs, device=self.device)  # expect-not: HTD106

    def staged(self, lens: list[int]) -> torch.Tensor:
        t = torch.tensor(lens, pin_memory=True)
        return t.to(self.device, non_blocking=True)  # expect-not: HTD106, HTD102

from __future__ import annotations

import torch


class RopeTables:
    def __init__(self, parts: list[torch.Tensor], device: torch.device) -> None:
        # Built once at start-up.
        self.table = torch.cat(parts).to(device)  # expect-not: HTD104

    def to_host(self, chunks: list[torch.Tensor]) -> torch.Tensor:
        return torch.cat(chunks).to("cpu")  # expect-not: HTD104

    def on_device(self, chunks: list[torch.Tensor]) -> torch.Tensor:
        return torch.cat(chunks).to(torch.float16)  # expect-not: HTD104

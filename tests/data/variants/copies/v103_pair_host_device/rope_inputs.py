from __future__ import annotations

import torch

from v103_pair_host_device.pair import HostDevicePair


class RopeInputs:
    def __init__(self, max_tokens: int, device: torch.device) -> None:
        self.pos3 = HostDevicePair(3, max_tokens + 1, dtype=torch.int64, device=device)
        self.pos = HostDevicePair(max_tokens, dtype=torch.int64, device=device)

    def commit(self, n: int) -> None:
        self.pos3.dev[:, :n].copy_(self.pos3.host[:, :n], non_blocking=True)  # expect: HTD103
        self.pos.dev[:n].copy_(self.pos.host[:n], non_blocking=True)  # expect-not: HTD102, HTD103

    def commit_rows(self, n: int) -> None:
        for r in range(3):
            self.pos3.dev[r, :n].copy_(self.pos3.host[r, :n], non_blocking=True)  # expect-not: HTD101, HTD103

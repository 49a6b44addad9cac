from __future__ import annotations

import torch


class DraftBuffers:
    def __init__(self, max_reqs: int, k: int, device: torch.device) -> None:
        self.draft_cpu = torch.zeros(max_reqs, k + 1, dtype=torch.int64, pin_memory=True)
        self.draft_gpu = torch.zeros(max_reqs, k + 1, dtype=torch.int64, device=device)

    def upload(self, num_reqs: int, num_draft: int) -> None:
        self.draft_gpu.narrow(1, 0, num_draft).copy_(self.draft_cpu.narrow(1, 0, num_draft), non_blocking=True)  # expect: HTD103

    def upload_reqs(self, num_reqs: int) -> None:
        self.draft_gpu.narrow(0, 0, num_reqs).copy_(self.draft_cpu.narrow(0, 0, num_reqs), non_blocking=True)  # expect-not: HTD103

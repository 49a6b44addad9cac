"""Paired host/device staging buffers for the model runner."""

from __future__ import annotations

import numpy as np
import torch


class CpuGpuBuffer:
    """A host tensor (pinned when the platform allows it) and a device tensor of the same shape
    and dtype. The runner writes ``cpu`` (usually through the numpy view ``np``) and copies it
    to ``gpu`` once per step."""

    def __init__(
        self,
        *size: int,
        dtype: torch.dtype,
        device: torch.device,
        pin_memory: bool,
        with_numpy: bool = True,
    ) -> None:
        self.cpu = torch.zeros(*size, dtype=dtype, device="cpu", pin_memory=pin_memory)
        self.gpu = torch.zeros_like(self.cpu, device=device)
        self.np: np.ndarray | None = self.cpu.numpy() if with_numpy else None

    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        # A leading-dimension slice is one dense block: the copy stays asynchronous.
        if n is None:
            return self.gpu.copy_(self.cpu, non_blocking=True)  # expect-not: HTD102, HTD103
        return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)  # expect-not: HTD102, HTD103

    def copy_columns_to_gpu(self, n: int) -> None:
        """Copies the first ``n`` columns of a 2-D buffer. ``cpu[:, :n]`` is a strided view
        (the rows are ``size[1]`` apart), so it goes one dense row at a time."""
        for row in range(self.gpu.shape[0]):
            self.gpu[row, :n].copy_(self.cpu[row, :n], non_blocking=True)  # expect-not: HTD101, HTD103

    def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
        # Device to host into pinned memory: the caller waits on an event before reading.
        if n is None:
            return self.cpu.copy_(self.gpu, non_blocking=True)  # expect-not: HTD102, HTD105
        return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)  # expect-not: HTD102, HTD105

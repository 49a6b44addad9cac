"""Host/device tensor pairs. The worker writes the host half (usually through its numpy view)
and copies it to the device half once per step."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from servekit.utils.platform import is_pin_memory_available


@dataclass
class PairedTensor:
    cpu: torch.Tensor
    gpu: torch.Tensor
    np: np.ndarray

    def copy_prefix(self, n: int) -> torch.Tensor:
        # The first n rows of a row-major tensor are one dense block: asynchronous when pinned.
        return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)  # expect-not: HTD102, HTD103


def paired_zeros(*shape: int, dtype: torch.dtype, device: torch.device) -> PairedTensor:
    cpu = torch.zeros(*shape, dtype=dtype, pin_memory=is_pin_memory_available())
    return PairedTensor(cpu=cpu, gpu=torch.zeros(*shape, dtype=dtype, device=device), np=cpu.numpy())

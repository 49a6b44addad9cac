"""Moving data to the device."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch


def to_device(x: Any, device: torch.device) -> Any:
    """Moves a tensor, or every tensor of a nested structure, keeping the structure."""
    if isinstance(x, torch.Tensor):
        return x.to(device, non_blocking=True)  # expect-not: HTD101, HTD102
    if isinstance(x, Mapping):
        return {k: to_device(v, device) for k, v in x.items()}  # expect-not: HTD101
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(v, device) for v in x)  # expect-not: HTD101
    return x


def async_h2d(data: list[int], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A Python list to the device through a pinned host tensor: the copy does not block."""
    return torch.tensor(data, dtype=dtype, pin_memory=True).to(device, non_blocking=True)  # expect-not: HTD102, HTD106


def numpy_to_device(arr: np.ndarray, device: torch.device) -> torch.Tensor:
    # A numpy array lives in pageable memory: non_blocking does not make this copy asynchronous.
    return torch.from_numpy(arr).to(device, non_blocking=True)  # expect: HTD102

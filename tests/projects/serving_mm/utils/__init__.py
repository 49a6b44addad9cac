"""Helpers shared by the runner and the models."""

from __future__ import annotations

import functools
import os

import torch

from serving_mm.utils.tensors import pad_to_multiple, to_device_each

__all__ = ["is_pin_memory_available", "pad_to_multiple", "to_device_each"]


@functools.cache
def is_pin_memory_available() -> bool:
    # Pinned memory is unreliable under WSL; everywhere else it is what makes copies async.
    in_wsl = "microsoft" in os.uname().release.lower()
    return torch.cuda.is_available() and not in_wsl

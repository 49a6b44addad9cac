from __future__ import annotations

import functools

import torch


@functools.cache
def is_pin_memory_available() -> bool:
    return torch.cuda.is_available()

"""Host/device buffer pairs, allocated once and reused every step."""

import torch


class CpuGpuBuffer:
    """A pinned host buffer and a device buffer of the same shape: the host side is filled, then
    copied over with ``non_blocking=True``."""

    def __init__(self, *shape, dtype, device):
        pin = torch.device(device).type == "cuda"
        self.cpu = torch.zeros(*shape, dtype=dtype, pin_memory=pin)
        self.gpu = torch.zeros(*shape, dtype=dtype, device=device)

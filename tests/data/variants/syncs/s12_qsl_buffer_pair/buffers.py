import torch


class CpuGpuBuffer:
    def __init__(self, size: int, dtype: torch.dtype, device: torch.device) -> None:
        self.cpu = torch.zeros(size, dtype=dtype, device="cpu", pin_memory=True)
        self.gpu = torch.zeros(size, dtype=dtype, device=device)

    def copy_to_gpu(self, n: int) -> torch.Tensor:
        return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

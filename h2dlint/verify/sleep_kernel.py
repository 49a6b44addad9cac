"""``torch.cuda._sleep``, the kernel that keeps a GPU busy for a known time: how many cycles make
a millisecond on this GPU (the clock differs between GPUs: 50 M cycles was 25 ms on an H200 and
too short for a test that assumed more). Shared by ``verify``, the GPU tests and the device
benchmarks; torch is passed in, never imported here."""

from __future__ import annotations

from typing import Any

START_CYCLES = 20_000_000
WARMUP_MATMULS = 50


def cycles_per_ms(
    torch: Any, device: Any = None, target_ms: float = 40.0, warm: bool = True
) -> float:
    """Cycles of ``torch.cuda._sleep`` per millisecond, measured with CUDA events; ``warm``
    first brings the clocks up with a few large matmuls (as the ground-truth scripts do)."""
    if warm:
        a = torch.randn(4096, 4096, device=device if device is not None else "cuda")
        for _ in range(WARMUP_MATMULS):
            a @ a
        torch.cuda.synchronize(device)
        del a
    cycles, per_ms = START_CYCLES, 0.0
    for _ in range(4):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        torch.cuda.synchronize(device)
        per_ms = cycles / max(start.elapsed_time(end), 1e-3)
        cycles = int(per_ms * target_ms)
    return per_ms


def cycles_for(torch: Any, ms: float, device: Any = None) -> int:
    """Cycles of ``torch.cuda._sleep`` that keep this GPU busy for about ``ms`` milliseconds."""
    return int(cycles_per_ms(torch, device, target_ms=ms) * ms)

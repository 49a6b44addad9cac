"""Which autofix designs are faster on a real GPU? Run on a CUDA machine:

    python benchmarks/gpu_fix_designs.py        # prints a table; writes $OUT/fix_designs.json

Every candidate fix must remove the blocking copy *and* not be slower than the flagged code.
For each size, each variant is timed idle (host ms until the copy is done) and behind a busy
stream (host ms the call takes while a 20 ms kernel runs: a non-blocking call returns at once).

  cat_pageable     torch.cat(parts).to(dev, non_blocking=True)               (flagged, HTD102/5)
  cat_birth_pin    torch.cat(parts, out=torch.empty(n, pin_memory=True))...   (per-call pinned out)
  cat_reused_pin   torch.cat(parts, out=pinned_buf)...                        (pinned once, reused)
  zeros_pageable   torch.zeros(n).to(dev, non_blocking=True)
  zeros_birth_pin  torch.zeros(n, pin_memory=True).to(dev, non_blocking=True)
  pin_blocking     pinned.to(dev)                                             (HTD105)
  pin_nb           pinned.to(dev, non_blocking=True)
  slice_nb         dst[:, :n].copy_(src[:, :n], non_blocking=True), src pinned (HTD103)
  rows_nb          for i in range(rows): dst[i, :n].copy_(src[i, :n], non_blocking=True)
"""

from __future__ import annotations

import json
import os
import statistics
import time

import torch

dev = torch.device("cuda")


def calibrate(ms: float) -> int:
    a = torch.randn(4096, 4096, device=dev)
    for _ in range(30):
        a @ a
    torch.cuda.synchronize()
    cycles = 20_000_000
    for _ in range(4):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.cuda._sleep(cycles)
        e.record()
        torch.cuda.synchronize()
        cycles = int(cycles * ms / s.elapsed_time(e))
    return cycles


def timed(fn, busy: int | None = None, reps: int = 15) -> tuple[float, float]:
    returned, done = [], []
    for _ in range(reps):
        torch.cuda.synchronize()
        if busy:
            torch.cuda._sleep(busy)
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        returned.append((t1 - t0) * 1e3)
        done.append((t2 - t0) * 1e3)
    return statistics.median(returned), statistics.median(done)


def main() -> None:
    busy = calibrate(20.0)
    rows = []
    for kib in (64, 1024, 4096, 16384, 65536):
        n = kib * 1024 // 4
        parts = [torch.randn(n // 8) for _ in range(8)]
        reused = torch.empty(n, pin_memory=True)
        pinned = torch.randn(n).pin_memory()
        width = max(n // 3 // 4 * 4, 4)
        src = torch.randn(3, width + 64).pin_memory()
        dst = torch.empty(3, width + 64, device=dev)
        variants = {
            "cat_pageable": lambda: torch.cat(parts).to(dev, non_blocking=True),
            "cat_birth_pin": lambda: torch.cat(parts, out=torch.empty(n, pin_memory=True)).to(
                dev, non_blocking=True
            ),
            "cat_reused_pin": lambda: torch.cat(parts, out=reused).to(dev, non_blocking=True),
            "zeros_pageable": lambda: torch.zeros(n).to(dev, non_blocking=True),
            "zeros_birth_pin": lambda: torch.zeros(n, pin_memory=True).to(dev, non_blocking=True),
            "pin_blocking": lambda: pinned.to(dev),
            "pin_nb": lambda: pinned.to(dev, non_blocking=True),
            "slice_nb": lambda: dst[:, :width].copy_(src[:, :width], non_blocking=True),
            "rows_nb": lambda: [
                dst[i, :width].copy_(src[i, :width], non_blocking=True) for i in range(3)
            ],
        }
        for name, fn in variants.items():
            for _ in range(5):
                fn()
            idle_ret, idle_done = timed(fn)
            busy_ret, _ = timed(fn, busy)
            row = dict(
                kib=kib,
                variant=name,
                idle_return_ms=round(idle_ret, 3),
                idle_done_ms=round(idle_done, 3),
                busy_return_ms=round(busy_ret, 3),
            )
            rows.append(row)
            print(
                f"{kib:>6} KiB {name:<16} idle done {idle_done:8.3f} ms | "
                f"behind 20 ms kernel returns {busy_ret:8.3f} ms",
                flush=True,
            )
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "fix_designs.json"), "w") as fh:
            json.dump(
                dict(torch=torch.__version__, gpu=torch.cuda.get_device_name(), rows=rows),
                fh,
                indent=1,
            )


if __name__ == "__main__":
    main()

"""Copies that need not happen at all (HTD301, HTD302, HTD303), measured on one CUDA GPU.

Plain python3 + torch (no h2dlint, no libcst). Run on a machine with a CUDA GPU:

    python3 benchmarks/device/needless_copies.py --out $OUT/needless_copies.json

Three measurements, each as the median of ``--repeats`` runs after a warm-up, on an idle GPU and
behind a busy stream (a ~40 ms ``torch.cuda._sleep`` kernel queued first, so that a copy that
waits for the stream shows up as host time):

(a) HTD302, a loop-invariant copy: a 50-step loop ``x = x * 0.98 + c.to(dev)`` with ``c`` a host
    tensor that never changes, against the same loop with the copy hoisted before it. For a small
    (4 KiB) and a larger (4 MiB) ``c``, pageable and pinned (``non_blocking=True``). Host time per
    iteration, GPU time of the whole loop, and the sync warnings of
    ``torch.cuda.set_sync_debug_mode("warn")``.
(b) HTD301, a factory on the host and a copy against the factory on the device:
    ``torch.ones(q, k, dtype=torch.bool).to(dev)`` vs ``torch.ones(..., device=dev)`` and
    ``torch.arange(n).to(dev)`` vs ``torch.arange(n, device=dev)``, small and large. Host time, GPU
    time, syncs, and the profiler's ``Memcpy HtoD`` count.
(c) HTD303, a round trip: ``torch.tensor(flat).to(dev).view(-1, 2).tolist()`` against the same
    on the host.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch

STEPS = 50
SLEEP_MS = 40.0


def calibrate(ms: float = SLEEP_MS) -> int:
    """Cycles of ``torch.cuda._sleep`` that take about ``ms`` milliseconds."""
    cycles = 20_000_000
    for _ in range(4):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        torch.cuda.synchronize()
        cycles = int(cycles * ms / start.elapsed_time(end))
    return cycles


def measure(fn: Callable[[], Any], cycles: int, repeats: int) -> dict[str, Any]:
    """Host time idle and behind the sleep kernel, GPU time, and sync warnings of one call."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    host, busy, gpu = [], [], []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        end.record()
        torch.cuda.synchronize()
        host.append((t1 - t0) * 1e3)
        gpu.append(start.elapsed_time(end))
    for _ in range(max(3, repeats // 4)):
        torch.cuda.synchronize()
        torch.cuda._sleep(cycles)
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        busy.append((t1 - t0) * 1e3)
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn()
    finally:
        torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()
    return {
        "host_ms": round(statistics.median(host), 4),
        "host_ms_behind_sleep": round(statistics.median(busy), 4),
        "gpu_ms": round(statistics.median(gpu), 4),
        "sync_warnings": sum("synchroniz" in str(w.message).lower() for w in caught),
    }


def memcpy_counts(fn: Callable[[], Any]) -> dict[str, int]:
    """The profiler's memcpy events of one call, by name."""
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    counts: dict[str, int] = {}
    for event in prof.events():
        if event.name.startswith("Memcpy"):
            counts[event.name] = counts.get(event.name, 0) + 1
    return counts


def loop_invariant(cycles: int, repeats: int, dev: torch.device) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for label, numel in (("4KiB", 1024), ("4MiB", 1024 * 1024)):
        for pinned in (False, True):
            host = torch.randn(numel, pin_memory=pinned)
            x0 = torch.randn(numel, device=dev)

            def inside(
                host: torch.Tensor = host, x0: torch.Tensor = x0, pinned: bool = pinned
            ) -> torch.Tensor:
                x = x0
                for _ in range(STEPS):
                    x = x * 0.98 + host.to(dev, non_blocking=pinned)
                return x

            def hoisted(
                host: torch.Tensor = host, x0: torch.Tensor = x0, pinned: bool = pinned
            ) -> torch.Tensor:
                x = x0
                c = host.to(dev, non_blocking=pinned)
                for _ in range(STEPS):
                    x = x * 0.98 + c
                return x

            assert torch.equal(inside(), hoisted())
            key = f"{label} {'pinned non_blocking' if pinned else 'pageable'}"
            case = {"inside": measure(inside, cycles, repeats)}
            case["hoisted"] = measure(hoisted, cycles, repeats)
            for side in ("inside", "hoisted"):
                for field in ("host_ms", "host_ms_behind_sleep"):
                    case[side][field + "_per_step"] = round(case[side][field] / STEPS, 4)
            case["memcpy_inside"] = memcpy_counts(inside)
            case["memcpy_hoisted"] = memcpy_counts(hoisted)
            results[key] = case
            print(f"(a) {key:28s} {case['inside']} | {case['hoisted']}")
    return results


def factories(cycles: int, repeats: int, dev: torch.device) -> dict[str, Any]:
    cases: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}
    for label, (q, k) in (("ones bool 64x64", (64, 64)), ("ones bool 2048x8192", (2048, 8192))):
        cases[label] = (
            lambda q=q, k=k: torch.ones(q, k, dtype=torch.bool).to(dev),
            lambda q=q, k=k: torch.ones(q, k, dtype=torch.bool, device=dev),
        )
    for label, n in (("arange 1k", 1024), ("arange 4M", 4 * 1024 * 1024)):
        cases[label] = (
            lambda n=n: torch.arange(n).to(dev),
            lambda n=n: torch.arange(n, device=dev),
        )
    cases["tensor(0).cuda() vs full((), 0)"] = (
        lambda: torch.tensor(0, dtype=torch.int).to(dev),
        lambda: torch.full((), 0, dtype=torch.int, device=dev),
    )
    results: dict[str, Any] = {}
    for label, (on_host, on_device) in cases.items():
        assert torch.equal(on_host(), on_device())
        case = {
            "host_then_copy": measure(on_host, cycles, repeats),
            "on_device": measure(on_device, cycles, repeats),
            "memcpy_host_then_copy": memcpy_counts(on_host),
            "memcpy_on_device": memcpy_counts(on_device),
        }
        results[label] = case
        print(f"(b) {label:32s} {case['host_then_copy']} | {case['on_device']}")
    return results


def round_trip(cycles: int, repeats: int, dev: torch.device) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for n in (1_000, 100_000):
        flat = torch.randint(0, 4096, (2 * n,)).tolist()

        def both_ways(flat: list[int] = flat) -> list[Any]:
            return torch.tensor(flat).to(dev).view(-1, 2).tolist()

        def host_only(flat: list[int] = flat) -> list[Any]:
            return torch.tensor(flat).view(-1, 2).tolist()

        assert both_ways() == host_only()
        case = {
            "round_trip": measure(both_ways, cycles, repeats),
            "host_only": measure(host_only, cycles, repeats),
            "memcpy_round_trip": memcpy_counts(both_ways),
        }
        results[f"{n} pairs"] = case
        print(f"(c) {n} pairs {case['round_trip']} | {case['host_only']}")
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        parser.error("needs a CUDA GPU")
    dev = torch.device("cuda")
    cycles = calibrate()
    result = {
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(),
        "steps": STEPS,
        "sleep_ms": SLEEP_MS,
        "repeats": args.repeats,
        "loop_invariant_copy": loop_invariant(cycles, args.repeats, dev),
        "host_factory_then_move": factories(cycles, args.repeats, dev),
        "device_round_trip": round_trip(cycles, args.repeats, dev),
    }
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Do writes through a boolean mask synchronize the host? HTD202 reports `x[mask] = v` on a hot
path as a sync; this measures it on the GPU two ways, as ../shared/ground-truth/implicit_syncs.py
does: torch.cuda.set_sync_debug_mode("warn") warnings, and host time behind a ~40 ms sleep kernel.
Look-alikes that must not sync (masked_fill_, torch.where, integer-index writes) are measured too.
Prints one line per case; writes mask_writes.json under $OUT when set."""

import json
import os
import time
import warnings

import torch

dev = torch.device("cuda")
x = torch.randn(4096, device=dev)
mask = torch.randn(4096, device=dev) > 0
idx = torch.arange(0, 4096, 2, device=dev)
vals = torch.randn(4096, device=dev)


def calibrate(ms: float = 40.0) -> int:
    cycles = 20_000_000
    for _ in range(4):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.cuda._sleep(cycles)
        e.record()
        torch.cuda.synchronize()
        cycles = int(cycles * ms / s.elapsed_time(e))
    return cycles


def put_scalar() -> None:
    x[mask] = 0.0


def put_tensor_value() -> None:
    x[mask] = torch.tensor(1.0, device=dev)


def put_selected() -> None:
    x[mask] = vals[mask]


def put_index_put() -> None:
    x.index_put_((mask,), torch.tensor(0.0, device=dev))


def masked_fill() -> None:
    x.masked_fill_(mask, 0.0)


def where() -> None:
    torch.where(mask, x, 0.0)


def int_index_write() -> None:
    x[idx] = 0.0


def mask_read() -> None:
    x[mask]


CASES = {
    "x[mask] = 0.0": put_scalar,
    "x[mask] = device 0-d tensor": put_tensor_value,
    "x[mask] = vals[mask]": put_selected,
    "x.index_put_((mask,), 0-d)": put_index_put,
    "x.masked_fill_(mask, 0.0) (look-alike)": masked_fill,
    "torch.where(mask, x, 0.0) (look-alike)": where,
    "x[int_idx] = 0.0 (look-alike)": int_index_write,
    "x[mask] (read, known sync)": mask_read,
}


def main() -> None:
    cycles = calibrate()
    results = {}
    for name, fn in CASES.items():
        fn()
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("warn")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.cuda._sleep(cycles)
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
        torch.cuda.set_sync_debug_mode("default")
        torch.cuda.synchronize()
        info = {
            "host_ms_behind_40ms_kernel": round((t1 - t0) * 1e3, 3),
            "sync_debug_warnings": sum("synchroniz" in str(w.message).lower() for w in caught),
        }
        results[name] = info
        print(f"{name:42s} {info}")
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "mask_writes.json"), "w") as out:
            json.dump(
                {
                    "torch": torch.__version__,
                    "gpu": torch.cuda.get_device_name(),
                    "results": results,
                },
                out,
                indent=1,
            )


if __name__ == "__main__":
    main()

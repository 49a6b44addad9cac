"""Which writes through an index synchronize the host? On an H200 (torch 2.11), behind a 40 ms
kernel, `x[long_index_on_device] = 0.0` held the host 40.1 ms (benchmarks/device/mask_writes.py):
this measures the forms around it, two ways, as ../shared/ground-truth/implicit_syncs.py does:
torch.cuda.set_sync_debug_mode("warn") warnings (with their first message) and host time behind a
~40 ms sleep kernel. Prints one line per case; writes index_writes.json under $OUT when set."""

import json
import os
import time
import warnings
from collections.abc import Callable

import torch

dev = torch.device("cuda")
x = torch.randn(4096, device=dev)
logits = torch.randn(8, 4096, device=dev)
idx = torch.arange(0, 4096, 2, device=dev)
idx_cpu = torch.arange(0, 4096, 2)
vals = torch.randn(2048, device=dev)
zero_d = torch.tensor(0.0, device=dev)
rows = torch.randn(64, 512, device=dev)
ids = torch.zeros(64, 512, dtype=torch.int64, device=dev)
zero_d_cpu = torch.tensor(0.0)


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


CASES: dict[str, Callable[[], object]] = {
    "x[idx] = 0.0": lambda: x.__setitem__(idx, 0.0),
    "x[idx] = vals": lambda: x.__setitem__(idx, vals),
    "x[idx] = 0-d device tensor": lambda: x.__setitem__(idx, zero_d),
    "logits[:, idx] = -inf": lambda: logits.__setitem__((slice(None), idx), float("-inf")),
    "x[idx_cpu] = 0.0": lambda: x.__setitem__(idx_cpu, 0.0),
    "x[[1, 2, 3]] = 0.0": lambda: x.__setitem__([1, 2, 3], 0.0),
    "x.index_put_((idx,), vals)": lambda: x.index_put_((idx,), vals),
    "x.index_put_((idx,), vals, accumulate=True)": lambda: x.index_put_((idx,), vals, True),
    "x.index_put_((idx,), 0-d device)": lambda: x.index_put_((idx,), zero_d),
    "x.index_fill_(0, idx, 0.0)": lambda: x.index_fill_(0, idx, 0.0),
    "x.index_copy_(0, idx, vals)": lambda: x.index_copy_(0, idx, vals),
    "x.scatter_(0, idx, vals)": lambda: x.scatter_(0, idx, vals),
    "x.scatter_(0, idx, 0.0)": lambda: x.scatter_(0, idx, 0.0),
    "x[idx] (read)": lambda: x[idx],
    "rows[3] = 0.0 (a whole row)": lambda: rows.__setitem__(3, 0.0),
    "rows[3, 7] = 0.0": lambda: rows.__setitem__((3, 7), 0.0),
    "rows[3, :100] = 0.0": lambda: rows.__setitem__((3, slice(None, 100)), 0.0),
    "rows[:, 7] = 0.0": lambda: rows.__setitem__((slice(None), 7), 0.0),
    "rows[3:5] = 0.0": lambda: rows.__setitem__(slice(3, 5), 0.0),
    "rows[..., 7] = 0.0": lambda: rows.__setitem__((Ellipsis, 7), 0.0),
    "ids[3, 7] = 5 (int)": lambda: ids.__setitem__((3, 7), 5),
    "ids[3, :10] = 5 (int)": lambda: ids.__setitem__((3, slice(None, 10)), 5),
    "x[5] = True-ish 1": lambda: x.__setitem__(5, 1),
    "x[5] = cpu 0-d tensor": lambda: x.__setitem__(5, zero_d_cpu),
    "x[5] = device 0-d tensor": lambda: x.__setitem__(5, zero_d),
    "x[5].fill_(0.0)": lambda: x[5].fill_(0.0),
    "rows[3].fill_(0.0)": lambda: rows[3].fill_(0.0),
    "rows[3].zero_()": lambda: rows[3].zero_(),
    "x[5] = 0.0 (control)": lambda: x.__setitem__(5, 0.0),
    "x[2:10] = 0.0 (control)": lambda: x.__setitem__(slice(2, 10), 0.0),
    "x.fill_(0.0) (control)": lambda: x.fill_(0.0),
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
        messages = [str(w.message) for w in caught if "synchroniz" in str(w.message).lower()]
        info = {
            "host_ms_behind_40ms_kernel": round((t1 - t0) * 1e3, 3),
            "sync_debug_warnings": len(messages),
            "first_warning": messages[0][:160] if messages else "",
        }
        results[name] = info
        print(
            f"{name:44s} {info['host_ms_behind_40ms_kernel']:8.3f} ms  {len(messages)}  "
            f"{info['first_warning'][:90]}"
        )
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "index_writes.json"), "w") as out:
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

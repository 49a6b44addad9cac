"""Which writes into a CUDA tensor synchronize the host: through a boolean mask, through an index,
into one element. Measured two ways, as ../shared/ground-truth/implicit_syncs.py does:
torch.cuda.set_sync_debug_mode("warn") warnings (with the first message) and host time behind a
~40 ms sleep kernel. HTD202 reports what syncs here and leaves the rest alone
(h2dlint/analysis/element_writes.py, rules/htd202_sync_on_hot_path.py).

    PYTHONPATH=. python3 benchmarks/device/write_syncs.py   # from the repository root

Prints one line per case; writes write_syncs.json under $OUT when set.
"""

import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from h2dlint.verify.sleep_kernel import cycles_for

dev = torch.device("cuda")
x = torch.randn(4096, device=dev)
rows = torch.randn(64, 512, device=dev)
ids = torch.zeros(64, 512, dtype=torch.int64, device=dev)
logits = torch.randn(8, 4096, device=dev)
mask = torch.randn(4096, device=dev) > 0
idx = torch.arange(0, 4096, 2, device=dev)
idx_cpu = torch.arange(0, 4096, 2)
vals = torch.randn(2048, device=dev)
all_vals = torch.randn(4096, device=dev)
zero_d = torch.tensor(0.0, device=dev)
zero_d_cpu = torch.tensor(0.0)


def put(tensor: torch.Tensor, index: object, value: object) -> Callable[[], object]:
    return lambda: tensor.__setitem__(index, value)


MASK_CASES: dict[str, Callable[[], object]] = {
    "x[mask] = 0.0": put(x, mask, 0.0),
    "x[mask] = 0-d device tensor": put(x, mask, zero_d),
    "x[mask] = all_vals[mask]": lambda: x.__setitem__(mask, all_vals[mask]),
    "x.index_put_((mask,), 0-d device)": lambda: x.index_put_((mask,), zero_d),
    "x.masked_fill_(mask, 0.0)": lambda: x.masked_fill_(mask, 0.0),
    "torch.where(mask, x, 0.0)": lambda: torch.where(mask, x, 0.0),
    "x[mask] (read)": lambda: x[mask],
}
INDEX_CASES: dict[str, Callable[[], object]] = {
    "x[idx] = 0.0": put(x, idx, 0.0),
    "x[idx] = vals": put(x, idx, vals),
    "x[idx] = 0-d device tensor": put(x, idx, zero_d),
    "logits[:, idx] = -inf": put(logits, (slice(None), idx), float("-inf")),
    "x[idx_cpu] = 0.0": put(x, idx_cpu, 0.0),
    "x[[1, 2, 3]] = 0.0": put(x, [1, 2, 3], 0.0),
    "x.index_put_((idx,), vals)": lambda: x.index_put_((idx,), vals),
    "x.index_put_((idx,), vals, accumulate=True)": lambda: x.index_put_((idx,), vals, True),
    "x.index_fill_(0, idx, 0.0)": lambda: x.index_fill_(0, idx, 0.0),
    "x.index_copy_(0, idx, vals)": lambda: x.index_copy_(0, idx, vals),
    "x.scatter_(0, idx, vals)": lambda: x.scatter_(0, idx, vals),
    "x.scatter_(0, idx, 0.0)": lambda: x.scatter_(0, idx, 0.0),
    "x[idx] (read)": lambda: x[idx],
}
ELEMENT_CASES: dict[str, Callable[[], object]] = {
    "x[5] = 0.0": put(x, 5, 0.0),
    "x[5] = 1 (int)": put(x, 5, 1),
    "x[5] = cpu 0-d tensor": put(x, 5, zero_d_cpu),
    "x[5] = device 0-d tensor": put(x, 5, zero_d),
    "rows[3, 7] = 0.0": put(rows, (3, 7), 0.0),
    "ids[3, 7] = 5": put(ids, (3, 7), 5),
    "rows[3] = 0.0 (a whole row)": put(rows, 3, 0.0),
    "rows[3, :100] = 0.0": put(rows, (3, slice(None, 100)), 0.0),
    "rows[:, 7] = 0.0": put(rows, (slice(None), 7), 0.0),
    "rows[..., 7] = 0.0": put(rows, (Ellipsis, 7), 0.0),
    "rows[3:5] = 0.0": put(rows, slice(3, 5), 0.0),
    "ids[3, :10] = 5": put(ids, (3, slice(None, 10)), 5),
    "x[2:10] = 0.0": put(x, slice(2, 10), 0.0),
    "x[5].fill_(0.0)": lambda: x[5].fill_(0.0),
    "rows[3].zero_()": lambda: rows[3].zero_(),
    "x.fill_(0.0)": lambda: x.fill_(0.0),
}


def measure(fn: Callable[[], object], cycles: int) -> dict[str, object]:
    fn()
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda._sleep(cycles)
        start = time.perf_counter()
        fn()
        held = time.perf_counter() - start
    torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()
    messages = [str(w.message) for w in caught if "synchroniz" in str(w.message).lower()]
    return {
        "host_ms_behind_40ms_kernel": round(held * 1e3, 3),
        "sync_debug_warnings": len(messages),
        "first_warning": messages[0][:160] if messages else "",
    }


def main() -> None:
    cycles = cycles_for(torch, 40.0)
    results: dict[str, dict[str, dict[str, object]]] = {}
    for group, cases in (("mask", MASK_CASES), ("index", INDEX_CASES), ("element", ELEMENT_CASES)):
        results[group] = {}
        for name, fn in cases.items():
            info = measure(fn, cycles)
            results[group][name] = info
            print(
                f"{group:8s} {name:44s} {info['host_ms_behind_40ms_kernel']:8.3f} ms  "
                f"{info['sync_debug_warnings']} sync warning(s)"
            )
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "write_syncs.json"), "w") as out:
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

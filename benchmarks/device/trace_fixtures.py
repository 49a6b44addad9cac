"""Trace every fixture's before.py and after.py on a CUDA GPU with ``h2dlint.trace`` and write,
per side, the JSON trace (with the join) and the text report, then a summary of all of them.

    python3 benchmarks/device/trace_fixtures.py --out $OUT/trace [fixtures/HTD101 ...]

Each side: ``setup(cuda)``, two warm-up runs, then RUNS runs traced (a sync after each, listed as
an explicit sync). The join checks the fixture file itself. One side failing (or taking more
than TIMEOUT_S) is recorded and the others go on. Needs torch with CUDA, and libcst for the join.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import torch

from h2dlint.trace import trace
from h2dlint.verify.fixtures import load_fixture

RUNS = 3
WARMUP = 2
TIMEOUT_S = 60


class Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout(f"more than {TIMEOUT_S} s")


def sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def trace_side(path: Path, out: Path, cpu: bool) -> dict[str, Any]:
    """Trace one fixture file; the summary row."""
    row: dict[str, Any] = {"fixture": str(path)}
    fixture = load_fixture(path)
    device = torch.device("cpu") if cpu else torch.device("cuda", torch.cuda.current_device())
    state = fixture.setup(device)
    for _ in range(WARMUP):
        fixture.run(state)
        sync()
    stem = out / f"{path.parent.name}-{path.stem}"
    started = time.perf_counter()
    outputs = [stem.with_suffix(".json"), stem.with_suffix(".txt")]
    types = ("cpu",) if cpu else ("cuda",)
    with trace(outputs, report=False, lint_paths=[path], device_types=types) as traced:
        for _ in range(RUNS):
            fixture.run(state)
            sync()
    row["traced_s"] = round(time.perf_counter() - started, 3)
    data, result = traced.data, traced.result
    assert data is not None
    row["events"] = sum(g.count for g in data.groups if not g.explicit)
    row["host_ms"] = round(sum(g.host_ms for g in data.groups if not g.explicit), 3)
    row["bursts"] = sum(b.bursts for b in data.bursts)
    if result is None:
        row["join"] = "no join (libcst missing?)"
        return row
    row["summary"] = result.summary()
    row["findings"] = [
        {"code": m.finding.code, "row": m.finding.start.row, "status": m.status, "detail": m.detail}
        for m in result.matches
    ]
    row["missed"] = [
        {"line": s.site.line, "count": s.count, "host_ms": round(s.host_ms, 3)}
        for s in result.missed
    ]
    return row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="Check this script without a GPU: run on the CPU, CPU tensors counted as device ones",
    )
    parser.add_argument("dirs", nargs="*", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    dirs = args.dirs or sorted(p for p in Path("fixtures").iterdir() if p.is_dir())
    signal.signal(signal.SIGALRM, _alarm)
    rows = []
    for directory in dirs:
        for side in ("before", "after"):
            path = directory / f"{side}.py"
            if not path.is_file():
                continue
            signal.alarm(TIMEOUT_S)
            try:
                row = trace_side(path, args.out, args.cpu)
            except BaseException as exc:  # one fixture failing must not stop the rest
                if isinstance(exc, KeyboardInterrupt):
                    raise
                row = {"fixture": str(path), "error": f"{type(exc).__name__}: {exc}"}
                row["traceback"] = traceback.format_exc()[-2000:]
            finally:
                signal.alarm(0)
                sync()
            rows.append(row)
            print(line(row), flush=True)
    (args.out / "fixtures-summary.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0


def line(row: dict[str, Any]) -> str:
    """One line per side: the rule's expected finding on before.py should be confirmed."""
    name = row["fixture"]
    if "error" in row:
        return f"{name:<28} ERROR {row['error']}"
    statuses = ", ".join(f"{f['code']}@{f['row']} {f['status']}" for f in row.get("findings", []))
    missed = ", ".join(
        f"line {m['line']} ({m['count']}x, {m['host_ms']} ms)" for m in row.get("missed", [])
    )
    return (
        f"{name:<28} {row['events']:>5} events {row['host_ms']:>9.3f} ms  "
        f"findings: {statuses or 'none'}; missed: {missed or 'none'}"
    )


if __name__ == "__main__":
    sys.exit(main())

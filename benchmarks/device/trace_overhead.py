"""The example under ``h2dlint trace``: the report (JSON, SARIF, text) and the overhead.

    python3 benchmarks/device/trace_overhead.py --out $OUT/trace/example [--steps 30]

Runs examples/trace_serving/serve.py untraced and traced alternately, three times each, each in
its own process: the first traced run with the join and the reports, the others without the join.
The overhead is the ratio of the steady-state median step times the example prints (traced /
untraced, the medians of the three runs of each); the processes' wall times are reported too
(they include torch's start-up, the trace's own start, and for the first traced run the static
analysis of the example's files).
Target: a ratio of at most 1.5. Writes overhead.json and prints the report and a summary.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SERVE = "examples/trace_serving/serve.py"
MEDIAN = re.compile(r"median step: ([0-9.]+) ms")
TARGET = 1.5


def run(command: list[str], timeout: float) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"command": command, "error": f"timed out after {timeout} s"}
    wall = time.perf_counter() - started
    found = MEDIAN.search(done.stdout)
    return {
        "command": command,
        "exit_code": done.returncode,
        "wall_s": round(wall, 3),
        "median_step_ms": float(found.group(1)) if found else None,
        "stdout": done.stdout[-2000:],
        "stderr": done.stderr[-4000:],
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--timeout", type=float, default=150)
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    example = [sys.executable, SERVE, "--steps", str(args.steps)]
    trace = [sys.executable, "-m", "h2dlint", "trace", "-q"]
    reports = ["-o", str(out / "example.json"), "-o", str(out / "example.sarif")]
    reports += ["-o", str(out / "example.txt")]
    # Untraced and traced runs alternate, three of each, so that a slow spell of the machine
    # (the medians of single runs differed by up to 30 % on the H200 host) falls on both sides.
    plan = [("untraced", example), ("traced", [*trace, *reports, "--", "python", *example[1:]])]
    for _ in range(2):
        plan.append(("untraced", example))
        plan.append(("traced-no-lint", [*trace, "--no-lint", "--", "python", *example[1:]]))
    runs = []
    for name, command in plan:
        result = run(command, args.timeout)
        result["name"] = name
        runs.append(result)
        step = result.get("median_step_ms")
        print(
            f"{name:<15} exit {result.get('exit_code')}  median step {step} ms  "
            f"process {result.get('wall_s')} s  {result.get('error', '')}",
            flush=True,
        )
        if result.get("exit_code") not in (0, None):
            print(result["stderr"], flush=True)
    untraced = [r["median_step_ms"] for r in runs if r["name"] == "untraced"]
    traced = [r["median_step_ms"] for r in runs if r["name"].startswith("traced")]
    summary: dict[str, Any] = {"target": TARGET, "runs": runs}
    if all(v is not None for v in untraced + traced) and untraced and traced:
        ratio = statistics.median(traced) / statistics.median(untraced)
        summary["step_ratio"] = round(ratio, 3)
        summary["within_target"] = ratio <= TARGET
        no_lint_wall = statistics.median(r["wall_s"] for r in runs if r["name"] == "traced-no-lint")
        untraced_wall = statistics.median(r["wall_s"] for r in runs if r["name"] == "untraced")
        summary["process_ratio_no_lint"] = round(no_lint_wall / untraced_wall, 3)
        print(
            f"overhead: median step traced / untraced = {ratio:.3f} (target <= {TARGET}: "
            f"{'met' if ratio <= TARGET else 'NOT met'}); whole process without the join "
            f"{summary['process_ratio_no_lint']:.3f}x",
            flush=True,
        )
    else:
        print("overhead: could not be measured (a run failed; see overhead.json)", flush=True)
    (out / "overhead.json").write_text(json.dumps(summary, indent=2) + "\n")
    report = out / "example.txt"
    if report.is_file():
        print("\n" + report.read_text(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

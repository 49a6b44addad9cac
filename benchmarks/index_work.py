"""Count and time the project index's operations in every process of one h2dlint run.

A parallel run forks workers that each build their own view of the project index: whatever
they ask about other modules (their libcst trees, their ``ast`` summaries, the callers and
mover questions) may be computed once per worker instead of once per run. This script runs
``h2dlint check`` with the given arguments, wraps the index's operations with CPU-time
counters in every process, and writes one JSON file per process under ``--out``; ``--report``
sums them and prints, per operation, calls and CPU seconds, and how many distinct modules the
index parsed against how many parses there were. Run it at ``-j 1`` and ``-j N`` on one tree
and compare the two reports (``--compare A B``): the difference is the work the workers repeat.

    python benchmarks/index_work.py --out /tmp/j1 -- --no-cache -j 1 --select ALL TREE
    python benchmarks/index_work.py --out /tmp/j16 -- --no-cache -j 16 --select ALL TREE
    python benchmarks/index_work.py --compare /tmp/j1 /tmp/j16
"""

from __future__ import annotations

import argparse
import functools
import glob
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

# Operation -> [calls, CPU seconds] in this process (outermost calls only), and the modules the
# index parsed with libcst -> how many times.
_STATS: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
_PARSED: dict[str, int] = defaultdict(int)
_DEPTH: dict[str, int] = defaultdict(int)


def _wrap(owner: Any, name: str, record: Callable[..., str] | None = None) -> None:
    original = getattr(owner, name)
    key = f"{getattr(owner, '__name__', owner)}.{name}"

    @functools.wraps(original)
    def counted(*args: Any, **kwargs: Any) -> Any:
        _DEPTH[key] += 1
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            _DEPTH[key] -= 1
            if _DEPTH[key] == 0:
                entry = _STATS[key]
                entry[0] += 1
                entry[1] += time.process_time() - start
            if record is not None:
                _PARSED[record(*args, **kwargs)] += 1

    setattr(owner, name, counted)


def _instrument(out: str) -> None:
    import h2dlint.analysis.step_loops as step_loops
    import h2dlint.pipeline as pipeline
    from h2dlint.project import callers, index, summary

    _wrap(index.ProjectIndex, "_parse", record=lambda _self, name: name)
    _wrap(index.ProjectIndex, "find")
    _wrap(index.ProjectIndex, "hot_reason")
    _wrap(summary.SummaryStore, "tree")
    for method in ("may_define_mover", "may_define_syncing_helper", "callers"):
        _wrap(callers.CallerIndex, method)
    _wrap(callers.CallerIndex, "called_names")
    _wrap(callers.CallerIndex, "_edges_of")
    for function in ("call_edges", "moving_functions", "syncing_functions", "called_text"):
        _wrap(callers, function)
    _wrap(step_loops, "_steps")
    original = pipeline.process

    def process(job: Any) -> Any:
        start = time.process_time()
        result = original(job)
        entry = _STATS["pipeline.process (all of a file's work)"]
        entry[0] += 1
        entry[1] += time.process_time() - start
        # Written after every file: a pool's worker exits without running atexit handlers.
        with open(os.path.join(out, f"{os.getpid()}.json"), "w") as handle:
            json.dump({"stats": _STATS, "parsed": _PARSED}, handle)
        return result

    pipeline.process = process


def _load(folder: str) -> tuple[int, dict[str, list[float]], dict[str, int], int]:
    stats: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    parsed: dict[str, int] = defaultdict(int)
    files = glob.glob(os.path.join(folder, "*.json"))
    for path in files:
        with open(path) as handle:
            data = json.load(handle)
        for key, (calls, seconds) in data["stats"].items():
            stats[key][0] += calls
            stats[key][1] += seconds
        for module, count in data["parsed"].items():
            parsed[module] += count
    return len(files), stats, parsed, len(parsed)


def report(folder: str) -> None:
    processes, stats, parsed, distinct = _load(folder)
    print(f"{folder}: {processes} processes")
    for key, (calls, seconds) in sorted(stats.items(), key=lambda item: -item[1][1]):
        print(f"  {key:58s} {int(calls):8d} calls {seconds:9.2f} s")
    print(f"  libcst parses of other modules: {sum(parsed.values())} of {distinct} modules")


def compare(first: str, second: str) -> None:
    _, one, parsed_one, _ = _load(first)
    _, two, parsed_two, _ = _load(second)
    print(f"{'operation':58s} {'A s':>9s} {'B s':>9s} {'B/A':>6s}")
    for key in sorted(set(one) | set(two), key=lambda k: -two.get(k, [0, 0.0])[1]):
        a, b = one.get(key, [0, 0.0])[1], two.get(key, [0, 0.0])[1]
        print(f"{key:58s} {a:9.2f} {b:9.2f} {b / a if a else float('nan'):6.2f}")
    print(
        f"libcst parses of other modules: A {sum(parsed_one.values())}, "
        f"B {sum(parsed_two.values())} ({len(parsed_two)} modules)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder for the per-process counts")
    parser.add_argument("--report", action="store_true", help="print the counts in --out")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two --out folders")
    parser.add_argument("arguments", nargs="*", help="h2dlint check's arguments (after --)")
    options = parser.parse_args()
    if options.compare:
        compare(*options.compare)
        return 0
    if not options.out:
        parser.error("--out is needed")
    if options.report:
        report(options.out)
        return 0
    os.makedirs(options.out, exist_ok=True)
    for old in glob.glob(os.path.join(options.out, "*.json")):
        os.remove(old)
    _instrument(options.out)
    from h2dlint.cli import main as h2dlint_main

    sys.argv = ["h2dlint", "check", *options.arguments]
    try:
        h2dlint_main()
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Profile every process of one parallel h2dlint run: where a many-core run spends its time.

A whole-tree run forks workers that each check a share of the files and build their own view of
the project index; a profile of a one-process run hides what the workers do twice. This script
runs ``h2dlint check`` with the given arguments, profiles the main process and each worker
with cProfile, and writes ``main.prof`` and ``worker-PID.prof`` under ``--out``; ``--report``
then sums the workers' profiles and prints the functions that took the most time (cumulative)
with the parent's, and each worker's total.

    python benchmarks/profile_workers.py --out /tmp/prof -- --no-cache -j 16 --select ALL TREE
    python benchmarks/profile_workers.py --out /tmp/prof --report
"""

from __future__ import annotations

import argparse
import cProfile
import glob
import os
import pstats
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from h2dlint.jobs import FileJob, FileResult

# The main process's profiler: a forked worker inherits it running, and stops it before it
# starts its own (Python 3.12 allows one profiler at a time).
_MAIN: list[cProfile.Profile] = []


# The worker's own profiler and where it writes (set in each worker by its initializer).
_WORKER: list[tuple[cProfile.Profile, str]] = []
_CHECKED: list[Callable[[FileJob], FileResult]] = []


def _dump() -> None:
    profile, out = _WORKER[-1]
    profile.disable()
    profile.dump_stats(os.path.join(out, f"worker-{os.getpid()}.prof"))


def _checking(job: FileJob) -> FileResult:
    """The worker's check of one file; a process forked for one file
    (h2dlint/forked_files.py) ends with os._exit, which runs no finalizer: the profile is
    written after each file as well. Module-level: a pool pickles it by name."""
    result = _CHECKED[0](job)
    if _WORKER:
        _dump()
        _WORKER[-1][0].enable()
    return result


def _profiled_initializer(out: str) -> None:
    """Wrap the pool's worker initializer: each worker profiles itself until it exits."""
    from multiprocessing.util import Finalize

    import h2dlint.runner as runner

    original = runner._start_worker
    _CHECKED.append(runner._process_in_worker)

    def initializer(parent: int) -> None:
        original(parent)
        for inherited in _MAIN:
            inherited.disable()
        _WORKER.append((cProfile.Profile(), out))
        Finalize(None, _dump, exitpriority=100)
        _WORKER[-1][0].enable()

    runner._start_worker = initializer
    runner._process_in_worker = _checking


def run(out: str, arguments: list[str]) -> int:
    os.makedirs(out, exist_ok=True)
    for old in glob.glob(os.path.join(out, "*.prof")):
        os.remove(old)
    _profiled_initializer(out)
    from h2dlint.cli import main

    profile = cProfile.Profile()
    _MAIN.append(profile)
    started = time.perf_counter()
    profile.enable()
    code = 0
    try:
        main(["check", *arguments], standalone_mode=False)
    except SystemExit as stop:
        code = int(stop.code or 0)
    finally:
        profile.disable()
        profile.dump_stats(os.path.join(out, "main.prof"))
    print(f"wall {time.perf_counter() - started:.2f} s (profiled)", file=sys.stderr)
    return code


def report(out: str, top: int) -> None:
    workers = sorted(glob.glob(os.path.join(out, "worker-*.prof")))
    for path in workers:
        stats = pstats.Stats(path)
        print(f"{os.path.basename(path)}: {stats.total_tt:.2f} s")  # type: ignore[attr-defined]
    if workers:
        summed = pstats.Stats(*workers, stream=sys.stdout)
        print(f"\n== {len(workers)} workers together ==")
        summed.sort_stats("cumulative").print_stats(top)
        summed.sort_stats("tottime").print_stats(top // 2)
    main = os.path.join(out, "main.prof")
    if os.path.exists(main):
        print("\n== main process ==")
        pstats.Stats(main, stream=sys.stdout).sort_stats("cumulative").print_stats(top // 2)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for the profiles")
    parser.add_argument("--report", action="store_true", help="print the saved profiles")
    parser.add_argument("--top", type=int, default=60, help="functions shown")
    parser.add_argument("check_args", nargs="*", help="arguments of `h2dlint check`")
    return parser.parse_args(argv)


if __name__ == "__main__":
    options = parse_args(sys.argv[1:])
    if options.report:
        report(options.out, options.top)
    else:
        sys.exit(run(options.out, options.check_args))

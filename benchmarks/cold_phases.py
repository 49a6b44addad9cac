"""Where a cold h2dlint run's CPU goes, phase by phase, against the libcst parse floor's CPU.

On a shared machine walls say little; CPU seconds per phase do. This script runs ``h2dlint
check`` with the given arguments in this process, with ``time.process_time`` marks around each
phase's functions in every process of the run (a forked worker writes its own counts after
each file), and writes one JSON file per process under ``--out``. Each phase's seconds are its
own: a phase that runs inside another (the index's libcst parse of a module that a rule's
question needs, inside the rules' walk) is counted once, by the innermost. ``--report`` sums the
processes and prints the table with the floor: the CPU of ``libcst.parse_module`` of every file
the run was given, in one process (``--floor``, measured by this script), so that the phases
read as fractions of the floor (``benchmarks/bench_lint.py``'s target is the run's wall against
the floor's). ``--compare A B`` prints two reports side by side. ``--questions`` also times
the questions HTD202 asks, where the rule asks them, and the parts of a module's hot paths
(``QUESTIONS``).

    python benchmarks/cold_phases.py --out /tmp/a -- --no-cache -j 1 --select ALL TREE
    python benchmarks/cold_phases.py --out /tmp/a --floor TREE   # the floor's CPU, once
    python benchmarks/cold_phases.py --out /tmp/a --report
    python benchmarks/cold_phases.py --compare /tmp/a /tmp/b
"""

from __future__ import annotations

import argparse
import functools
import gc
import glob
import importlib
import json
import os
import sys
import time
import types
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

# (module, attribute, phase): what is timed. ``Class.method`` for a method. The same function
# imported by name into another module is replaced there too (``pipeline`` imports ``parse``).
PHASES: tuple[tuple[str, str, str], ...] = (
    ("h2dlint.discovery", "Discovery.candidates", "discovery"),
    ("h2dlint.source", "decode", "decode"),
    ("h2dlint.parsing", "cpython_parse", "CPython parse of the files checked"),
    ("h2dlint.pipeline", "candidate_rules", "candidate filter"),
    ("h2dlint.parsing", "parse", "libcst parse of the files checked"),
    ("h2dlint.project.index", "parse_valid_python", "libcst parse of consulted modules (index)"),
    ("h2dlint.project.summary", "SummaryStore.tree", "summaries: CPython parses"),
    ("h2dlint.project.summary", "SummaryStore.part", "summaries: parts computed"),
    ("h2dlint.engine", "check_text", "the walk, contexts, locating reports"),
    ("h2dlint.cache", "ResultCache.save", "result cache write"),
    ("h2dlint.cache", "SummaryFile.save", "summary store write"),
    ("h2dlint.check_report", "report", "reporter"),
    ("h2dlint.pipeline", "process", "the rest of a file's work (digests, trees offered)"),
    # What a run with a cache adds (a pre-commit run over a few files: session 46).
    ("h2dlint.cache", "ResultCache.__init__", "result cache opened"),
    ("h2dlint.cache", "SummaryFile.load", "summary store read"),
    ("h2dlint.project.tree_store", "TreeStore.load", "stored libcst trees loaded"),
    ("h2dlint.project.roots", "ProjectIndexes.__init__", "project layouts"),
    ("h2dlint.project.callers", "CallerIndex.stored_tables", "stored tables shared: checked"),
    ("h2dlint.project.callers", "CallerIndex.share_stored_tables", "stored tables shared: built"),
)
# With ``--questions``: the questions HTD202 asks, each timed where the rule's module calls it
# (its name replaced in that module only), and the parts of the module's hot paths (asked by
# any rule), each counting its own time as any phase does (session 44).
RULE_202 = "h2dlint.rules.htd202_sync_on_hot_path"
HOT = "h2dlint.analysis.hot_paths"
QUESTIONS_202 = (
    "tested_tensor",
    "synced_argument",
    "device_mask",
    "value_where",
    "explicit_sync",
    "call_reads",
    "unknown_device_root",
    "schedule_root",
    "not_a_tensor_here",
    "host_scalar",
    "mask_write",
    "round_trip_read",
    "bool_operand",
    "written_to",
    "runs_every_call",
)
QUESTIONS: tuple[tuple[str, str, str], ...] = (
    *((RULE_202, name, f"HTD202 asks {name}") for name in QUESTIONS_202),
    (HOT, "HotPaths._propagate", "hot paths: the module's propagation"),
    (HOT, "HotPaths._cold_uncached", "hot paths: is a function cold"),
    (HOT, "HotPaths._callees", "hot paths: callees in the module"),
    (HOT, "HotPaths._project_reason", "hot paths: the project's callers"),
    (HOT, "host_only_method", "hot paths: a host-only module's method"),
    ("h2dlint.analysis.once", "RunOnce.function", "run once: a function (its references)"),
)
# Modules that import a timed function by name.
IMPORTERS = (
    "h2dlint.pipeline",
    "h2dlint.engine",
    "h2dlint.fixer",
    "h2dlint.runner",
    "h2dlint.check_command",
)
GC_PHASE = "young collections between files"
MAIN_REST = "the rest (imports, settings, index set-up, forks, results)"
WORKER_REST = "workers' rest (after the fork, results sent)"
OWN_WRITES = "(this script's writes of its counts)"
TOTAL = "all of the process (process_time)"
STARTUP = "interpreter start (main process)"
IMPORTS = "imports before the run: h2dlint's timed modules, libcst (main process)"

_SECONDS: dict[str, float] = defaultdict(float)
_CALLS: dict[str, int] = defaultdict(int)
_STACK: list[float] = []  # per open phase: the seconds of the phases inside it


def _timed(phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        _STACK.append(0.0)
        try:
            return function(*args, **kwargs)
        finally:
            spent = time.process_time() - start
            inner = _STACK.pop()
            _SECONDS[phase] += spent - inner
            _CALLS[phase] += 1
            if _STACK:
                _STACK[-1] += spent

    return timed


_RULE_TIMERS: dict[str, Callable[..., Any]] = {}


def _per_rule_call(self: Any, handlers: Any, node: Any) -> None:
    """``dispatch._Dispatcher._call`` with each rule's handlers timed as the rule's phase (an
    analysis shared by several rules counts for the first that asks it)."""
    for pair in handlers:
        code = pair[0].code
        timer = _RULE_TIMERS.get(code)
        if timer is None:
            timer = _RULE_TIMERS[code] = _timed(f"rule {code}", _DISPATCH_CALL[0])
        timer(self, (pair,), node)


_DISPATCH_CALL: list[Callable[..., Any]] = []


def _instrument(out: str, questions: bool = False) -> None:
    for module_name, attribute, phase in PHASES + (QUESTIONS if questions else ()):
        module = importlib.import_module(module_name)
        owner_name, _, name = attribute.rpartition(".")
        if owner_name:
            owner = getattr(module, owner_name)
            setattr(owner, name, _timed(phase, getattr(owner, name)))
            continue
        original = getattr(module, name)
        timed = _timed(phase, original)
        setattr(module, name, timed)
        for importer in IMPORTERS:
            other = importlib.import_module(importer)
            if getattr(other, name, None) is original:
                setattr(other, name, timed)
    pipeline = importlib.import_module("h2dlint.pipeline")
    # The young collection after each file (pipeline._process_collecting).
    pipeline.gc = types.SimpleNamespace(  # type: ignore[attr-defined]
        isenabled=gc.isenabled,
        disable=gc.disable,
        enable=gc.enable,
        collect=_timed(GC_PHASE, gc.collect),
    )
    dispatch = importlib.import_module("h2dlint.dispatch")
    _DISPATCH_CALL.append(dispatch._Dispatcher._call)
    dispatch._Dispatcher._call = _per_rule_call
    processed = pipeline.process

    def process(job: Any) -> Any:
        result = processed(job)
        _write(out)  # after every file: a forked worker ends without atexit handlers
        return result

    setattr(pipeline, "process", process)  # noqa: B010 - a module's attribute, replaced
    os.register_at_fork(after_in_child=_forked)


def _forked() -> None:
    """A worker counts its own phases (its CPU time starts at zero at the fork)."""
    _SECONDS.clear()
    _CALLS.clear()
    _STACK.clear()


def _write(out: str) -> None:
    """This process's counts so far, in its own file; the writes' own CPU counted apart."""
    start = time.process_time()
    seconds = dict(_SECONDS)
    seconds[TOTAL] = start
    with open(os.path.join(out, f"{os.getpid()}.json"), "w") as handle:
        json.dump({"seconds": seconds, "calls": _CALLS, "main": os.getpid() == _MAIN}, handle)
    _SECONDS[OWN_WRITES] += time.process_time() - start


_MAIN = os.getpid()


def floor(paths: list[str], out: str) -> float:
    """The CPU seconds of ``libcst.parse_module`` of every file under ``paths``, in this
    process (the floor of ``bench_lint.py``, its import of libcst left out)."""
    import libcst

    files = [p for top in paths for p in _python_files(Path(top))]
    start = time.process_time()
    for path in files:
        try:
            libcst.parse_module(path.read_bytes())
        except Exception:  # a file libcst refuses is the floor's too
            continue
    spent = time.process_time() - start
    with open(os.path.join(out, "floor.json"), "w") as handle:
        json.dump({"seconds": spent, "files": len(files)}, handle)
    return spent


def _python_files(top: Path) -> list[Path]:
    if top.is_file():
        return [top]
    return sorted(p for p in top.rglob("*.py") if p.is_file())


def load(folder: str) -> tuple[dict[str, float], dict[str, int], int, float | None]:
    """The phases' seconds and calls summed over the processes of a run, the number of
    processes, and the floor's seconds (None when not measured)."""
    seconds: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    processes = 0
    for path in glob.glob(os.path.join(folder, "[0-9]*.json")):
        with open(path) as handle:
            data = json.load(handle)
        processes += 1
        own = data["seconds"]
        total = own.pop(TOTAL)
        rest = MAIN_REST if data["main"] else WORKER_REST
        seconds[rest] += total - sum(own.values())
        for phase, spent in own.items():
            seconds[phase] += spent
        for phase, count in data["calls"].items():
            calls[phase] += count
        seconds[TOTAL] += total
    floor_seconds = None
    floor_file = os.path.join(folder, "floor.json")
    if os.path.exists(floor_file):
        with open(floor_file) as handle:
            floor_seconds = json.load(handle)["seconds"]
    return seconds, calls, processes, floor_seconds


def report(folders: list[str]) -> str:
    """The table of one run's phases, or of several side by side (CPU seconds, calls, and
    fractions of the first run's floor)."""
    runs = [load(folder) for folder in folders]
    floor_seconds = next((run[3] for run in runs if run[3]), None)
    phases = sorted(
        {phase for run in runs for phase in run[0]}, key=lambda p: -runs[0][0].get(p, 0.0)
    )
    phases.remove(TOTAL)
    phases.append(TOTAL)
    head = " | ".join(f"{folder} (CPU s)" for folder in folders)
    lines = [f"| phase | {head} |", "| --- |" + " --- |" * len(folders)]
    for phase in phases:
        cells = []
        for seconds, calls, _processes, _floor in runs:
            spent = seconds.get(phase, 0.0)
            share = f", {spent / floor_seconds:.2f}x floor" if floor_seconds else ""
            count = f" [{calls[phase]}]" if calls.get(phase) else ""
            cells.append(f"{spent:.2f}{count}{share}")
        lines.append(f"| {phase} | {' | '.join(cells)} |")
    if floor_seconds:
        lines.append(
            f"| the floor: libcst parse of every file, one process | {floor_seconds:.2f} |"
        )
    lines.append("processes: " + ", ".join(str(run[2]) for run in runs))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", help="folder for the per-process counts")
    parser.add_argument("--report", action="store_true", help="print the table of --out")
    parser.add_argument("--floor", nargs="+", metavar="PATH", help="measure the floor's CPU")
    parser.add_argument("--compare", nargs="+", metavar="OUT", help="--out folders side by side")
    parser.add_argument(
        "--questions", action="store_true", help="also time HTD202's questions and hot paths"
    )
    parser.add_argument("arguments", nargs="*", help="h2dlint check's arguments (after --)")
    options = parser.parse_args()
    if options.compare:
        print(report(options.compare))
        return 0
    if not options.out:
        parser.error("--out is needed")
    os.makedirs(options.out, exist_ok=True)
    if options.floor:
        print(f"floor: {floor(options.floor, options.out):.2f} s of CPU")
        return 0
    if options.report:
        print(report([options.out]))
        return 0
    for old in glob.glob(os.path.join(options.out, "[0-9]*.json")):
        os.remove(old)
    started = time.process_time()
    _SECONDS[STARTUP] += started  # the interpreter's start and this script's own imports
    from h2dlint.dataclass_code import kept

    with kept():  # as the run imports libcst: its dataclasses' methods from the kept table
        _instrument(options.out, options.questions)
        from h2dlint.cli import main as h2dlint_main

    _SECONDS[IMPORTS] += time.process_time() - started

    sys.argv = ["h2dlint", "check", *options.arguments]
    code: Any = 0
    try:
        h2dlint_main()
    except SystemExit as exit_:
        code = exit_.code
    _write(options.out)
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())

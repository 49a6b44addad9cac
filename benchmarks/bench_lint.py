#!/usr/bin/env python3
"""Benchmark h2dlint on real PyTorch code against the libcst parse floor and its peers.

    python benchmarks/bench_lint.py                          # every tree, 3 runs each
    python benchmarks/bench_lint.py --quick --trees mixed    # one run of each variant
    python benchmarks/bench_lint.py --tree src/ --no-peers   # a local tree
    python benchmarks/bench_lint.py --json results.json      # also write every sample

Trees are pinned packages from PyPI, downloaded by ``scripts/fetch_corpus.py`` into a cache
outside the repository (``--corpus-dir``, default ``~/.cache/h2dlint/corpus``); ``mixed`` is a
merged, hard-linked copy of every corpus package but transformers and diffusers. Peers (TorchFix,
Fixit, Ruff) are installed with pip into venvs of their own under ``--peer-venvs`` on first use,
never into the environment that runs h2dlint. h2dlint runs as ``python -m h2dlint`` from the
interpreter that runs this script, so the numbers are those of the checkout it imports.

Every variant of one tree runs in turn, the order rotated each round, so that a slow spell of the
machine spreads over all of them; the table gives the median wall time and the spread
(min-max), CPU time (user+sys of the process and its children), and the largest resident set of
any one process of the run (``wait4``). ``docs/benchmarks.md`` explains each number.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CACHE_ROOT = Path.home() / ".cache" / "h2dlint"
EXCLUDED_TREE_PACKAGES = ("transformers", "diffusers")
DEFAULT_TREES = ("transformers", "diffusers", "lightning", "mixed")
PRECOMMIT_FILES = 10
# Set in a variant's environment: h2dlint runs without the project index (h2dlint/runner.py).
NO_INDEX_VARIABLE = "H2DLINT_NO_PROJECT_INDEX"
PEER_TIMEOUT_S = 3600.0
# The environment of every measured process: PYTHONPATH points at the snapshot of the checkout
# (see snapshot_checkout) unless --no-snapshot.
CHILD_ENV: dict[str, str] | None = None

# Peers, pinned, each installed into a venv of its own: TorchFix pins libcst<1.6 and Fixit pins
# click<8.2, so they cannot share one environment with each other or with h2dlint.
PEERS: dict[str, tuple[str, str]] = {
    # name: (requirement, label)
    "torchfix": ("torchfix==0.7.0", "TorchFix --select ALL"),
    "fixit": ("fixit==2.2.1", "Fixit lint"),
    "ruff": ("ruff==0.17.6", "Ruff --select ALL --no-cache"),
}


# -- trees -----------------------------------------------------------------------------------


def load_fetch_corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_corpus", REPO / "scripts/fetch_corpus.py")
    if spec is None or spec.loader is None:  # pragma: no cover
        raise RuntimeError("scripts/fetch_corpus.py not found")
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_corpus"] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Tree:
    name: str
    path: Path
    description: str
    files: list[Path] = field(default_factory=list)
    lines: int = 0
    bytes: int = 0


def excluded_dir_names() -> frozenset[str]:
    try:
        from h2dlint.config import DEFAULT_EXCLUDE
    except ImportError:  # pragma: no cover
        DEFAULT_EXCLUDE = (".git", ".venv", "__pycache__", "build", "dist", "venv")
    return frozenset(DEFAULT_EXCLUDE)


def python_files(root: Path) -> list[Path]:
    """The ``.py`` files h2dlint's walk finds below ``root`` (default excludes, no symlinked
    directories), sorted."""
    skip = excluded_dir_names()
    found: list[Path] = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        found.extend(Path(directory, f) for f in files if f.endswith((".py", ".pyi")))
    return sorted(found)


def measure_tree(tree: Tree) -> Tree:
    tree.files = python_files(tree.path)
    for path in tree.files:
        data = path.read_bytes()
        tree.bytes += len(data)
        tree.lines += data.count(b"\n")
    return tree


def _link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def mixed_tree(fetch_corpus: ModuleType, bench_dir: Path) -> Tree:
    """Every corpus package but transformers and diffusers, merged into one directory of hard
    links (h2dlint's walk does not follow symlinked directories)."""
    names = [n for n in fetch_corpus.PACKAGES if n not in EXCLUDED_TREE_PACKAGES]
    pinned = [f"{n}-{fetch_corpus.PACKAGES[n]}" for n in names]
    dest = bench_dir / "trees" / "mixed"
    stamp = "\n".join(pinned) + "\n"
    marker = dest / ".complete"
    if not (marker.exists() and marker.read_text() == stamp):
        sources = [fetch_corpus.fetch(n) for n in names]
        staging = Path(tempfile.mkdtemp(dir=bench_dir, prefix=".mixed-"))
        try:
            for source, label in zip(sources, pinned, strict=True):
                for path in python_files(source):
                    _link_or_copy(path, staging / label / path.relative_to(source))
            (staging / ".complete").write_text(stamp)
            if dest.exists():
                shutil.rmtree(dest)
            dest.parent.mkdir(parents=True, exist_ok=True)
            staging.rename(dest)
        finally:
            if staging.exists():
                shutil.rmtree(staging)
    return Tree("mixed", dest, "merged: " + ", ".join(pinned))


def resolve_trees(args: argparse.Namespace) -> list[Tree]:
    trees: list[Tree] = []
    for given in args.tree:
        path = Path(given).resolve()
        if not path.is_dir():
            raise SystemExit(f"bench_lint: --tree {given}: not a directory")
        trees.append(Tree(path.name, path, f"local: {path}"))
    names = [n.strip() for n in (args.trees or "").split(",") if n.strip()]
    if not names and not trees:
        names = list(DEFAULT_TREES)
    if not names:
        return [measure_tree(t) for t in trees]
    if args.corpus_dir:
        os.environ["H2DLINT_CORPUS_DIR"] = str(Path(args.corpus_dir).expanduser())
    fetch_corpus = load_fetch_corpus()
    for name in names:
        if name.lower() in fetch_corpus.RESERVED:
            raise SystemExit(f"bench_lint: {name} is reserved for independent evaluation")
        if name == "mixed":
            trees.append(mixed_tree(fetch_corpus, args.bench_dir))
        elif name in fetch_corpus.PACKAGES:
            version = fetch_corpus.PACKAGES[name]
            trees.append(Tree(name, fetch_corpus.fetch(name), f"{name}=={version}"))
        else:
            known = ", ".join([*fetch_corpus.PACKAGES, "mixed"])
            raise SystemExit(f"bench_lint: unknown tree {name!r}; known: {known}")
    return [measure_tree(t) for t in trees]


# -- running and measuring one command -------------------------------------------------------


@dataclass
class Sample:
    wall_s: float
    cpu_s: float
    max_rss_mb: float  # the largest resident set of any one process of the run
    tree_pss_mb: float | None  # peak of the summed PSS of the whole process tree (sampled)
    returncode: int
    error: str = ""


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                out.extend(int(p) for p in handle.read().split())
        except OSError:
            continue
    return out


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class TreeMemorySampler:
    """Samples the summed proportional set size (PSS) of a process and its descendants: shared
    pages (a forked worker's copy-on-write inheritance) count once, split among the sharers."""

    def __init__(self, pid: int, interval_s: float = 0.1) -> None:
        self.pid = pid
        self.interval_s = interval_s
        self.peak_kb = 0
        self.available = os.path.exists(f"/proc/{pid}/smaps_rollup")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeMemorySampler:
        if self.available:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self.available:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids: list[int] = []
            frontier = _children(self.pid)  # the launcher itself is not counted
            while frontier:
                pid = frontier.pop()
                pids.append(pid)
                frontier.extend(_children(pid))
            self.peak_kb = max(self.peak_kb, sum(_pss_kb(p) for p in pids))
            self._stop.wait(self.interval_s)


# The measured command is started by this small launcher rather than by the benchmark itself:
# a process's peak RSS (ru_maxrss) counts the memory of the process it was forked from, up to its
# exec, so a command forked from this script would never show less than this script's own size.
# The launcher, a Python without site (a few MB), forks the command, waits for it with wait4 and
# writes wall time, CPU time (the command and its reaped children), largest RSS of any one
# process of the tree and exit code to the file named by its first argument.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
with open(sys.argv[1], "w") as out:
    out.write(repr((wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, code)))
"""


def run_measured(
    cmd: Sequence[str],
    *,
    cwd: Path | None = None,
    timeout_s: float | None = None,
    sample_memory: bool = False,
    stdout_path: Path | None = None,
) -> Sample:
    """Run ``cmd`` to completion: its wall time, CPU time and peak memory from ``wait4``."""
    with contextlib.ExitStack() as stack:
        stderr = stack.enter_context(tempfile.TemporaryFile())
        result_dir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        result_file = result_dir / "rusage"
        stdout: Any = subprocess.DEVNULL
        if stdout_path is not None:
            stdout = stack.enter_context(open(stdout_path, "wb"))
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-S", "-c", LAUNCHER, str(result_file), *cmd],
            cwd=cwd,
            env=CHILD_ENV,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        timer = None
        if timeout_s:
            timer = threading.Timer(timeout_s, _kill_group, (proc.pid,))
            timer.start()
        sampler = TreeMemorySampler(proc.pid) if sample_memory else None
        with sampler or contextlib.nullcontext():
            proc.wait()
        outer_wall = time.perf_counter() - start
        if timer is not None:
            timer.cancel()
        stderr.seek(0)
        err = stderr.read().decode("utf-8", "replace")
        try:
            wall, cpu, maxrss_kb, code = ast.literal_eval(result_file.read_text())
        except (OSError, ValueError, SyntaxError):
            wall, cpu, maxrss_kb = outer_wall, float("nan"), 0
            code = proc.returncode if proc.returncode else -9
            err += f"\n(killed after {outer_wall:.0f} s)" if timer and not timer.is_alive() else ""
    return Sample(
        wall_s=wall,
        cpu_s=cpu,
        max_rss_mb=maxrss_kb / 1024,  # Linux reports KiB
        tree_pss_mb=(sampler.peak_kb / 1024) if sampler and sampler.available else None,
        returncode=code,
        error=err[-2000:],
    )


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, 9)


# -- peers -----------------------------------------------------------------------------------


@dataclass
class Peer:
    name: str
    label: str
    command: list[str] | None = None  # None: unavailable
    version: str = ""
    problem: str = ""


def install_peer(name: str, venvs: Path, log: Callable[[str], None]) -> Peer:
    requirement, label = PEERS[name]
    venv = venvs / name
    binary = venv / "bin" / name
    marker = venv / ".h2dlint-bench-installed"
    peer = Peer(name, label)
    if not (marker.exists() and marker.read_text() == requirement and binary.exists()):
        log(f"installing {requirement} into {venv} ...")
        if venv.exists():
            shutil.rmtree(venv)
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", requirement],
        ]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
                peer.problem = f"install failed: {' '.join(tail)[:300]}"
                return peer
        marker.write_text(requirement)
    peer.version = requirement.split("==", 1)[1]
    if name == "torchfix":
        peer.command = [str(binary), "--select", "ALL"]
    elif name == "fixit":
        peer.command = [str(binary), "lint"]
    else:
        peer.command = [str(binary), "check", "--select", "ALL", "--no-cache", "--isolated"]
        peer.command += ["--exit-zero", "--output-format", "concise"]
    return peer


# -- the variants ----------------------------------------------------------------------------


@dataclass
class Variant:
    key: str
    label: str
    command: list[str]
    files: int
    rounds: int  # how many rounds this variant takes part in
    sample_memory: bool = False
    timeout_s: float | None = None
    ok_codes: tuple[int, ...] = (0,)
    prepare: Callable[[], None] | None = None
    check: Callable[[], str] | None = None  # after a run: why its sample is invalid, or ""
    stdout_path: Path | None = None
    samples: list[Sample] = field(default_factory=list)
    failure: str = ""


def h2dlint_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "h2dlint", "check", "--select", "ALL", "--exit-zero", *extra]


def cache_format() -> int:
    from h2dlint.cache import CACHE_FORMAT

    return CACHE_FORMAT


def rule_codes() -> list[str]:
    from h2dlint.registry import all_rules

    return list(all_rules())


@dataclass
class ParseShare:
    """Which files h2dlint hands to libcst: those a rule has a candidate in."""

    files: int = 0
    bytes: int = 0
    parsed_files: list[Path] = field(default_factory=list)
    parsed_bytes: int = 0
    marked_files: int = 0  # the byte markers alone (before the ast candidates)
    marked_bytes: int = 0


def parse_share(tree: Tree) -> ParseShare:
    """The files of ``tree`` that h2dlint parses with libcst with every rule enabled (and with
    the byte markers alone), by running its prefilters (``h2dlint.pipeline.candidate_rules``)
    in this process."""
    from h2dlint.jobs import EnabledRule
    from h2dlint.parsing import cpython_parse
    from h2dlint.pipeline import candidate_rules
    from h2dlint.registry import all_rules
    from h2dlint.source import SourceError, decode
    from h2dlint.suppression import has_skip_file

    rules = tuple(EnabledRule(rule) for rule in all_rules().values())
    share = ParseShare()
    for path in tree.files:
        data = path.read_bytes()
        share.files += 1
        share.bytes += len(data)
        try:
            text = decode(data).text
        except SourceError:
            continue  # reported, never parsed
        parsed = cpython_parse(text, str(path))
        if has_skip_file(text) or parsed.fatal is not None:
            continue
        if candidate_rules(data, rules, None):
            share.marked_files += 1
            share.marked_bytes += len(data)
        if parsed.tree is None or candidate_rules(data, rules, parsed.tree):
            share.parsed_files.append(path)
            share.parsed_bytes += len(data)
    return share


def precommit_files(tree: Tree, share: ParseShare, count: int = PRECOMMIT_FILES) -> list[Path]:
    """``count`` files a commit might touch: spread evenly over the files h2dlint parses with
    libcst (the expensive ones), so that the case is not flattered by the prefilters; over all
    files when it parses none."""
    parsed = share.parsed_files or list(tree.files)
    if len(parsed) <= count:
        return parsed
    step = len(parsed) / count
    return [parsed[int(i * step)] for i in range(count)]


def build_variants(
    tree: Tree, peers: list[Peer], args: argparse.Namespace, work: Path
) -> tuple[list[Variant], dict[str, Any]]:
    cores = available_cores()
    listing = work / f"{tree.name}-files.txt"
    listing.write_text("".join(f"{p}\n" for p in tree.files))
    script = str(Path(__file__).resolve())
    json_out = ("--output-format", "json", "--output-file", str(work / "h2dlint-out.json"))
    n = len(tree.files)
    runs = args.runs
    serial_runs = 1 if args.quick else (args.serial_runs or runs)
    variants = [
        Variant(
            "floor_1",
            "libcst parse_module, 1 process",
            [sys.executable, script, "_floor", "--jobs", "1", str(listing)],
            n,
            serial_runs,
            sample_memory=True,
        ),
        Variant(
            "floor_n",
            f"libcst parse_module, {cores} processes",
            [sys.executable, script, "_floor", "--jobs", str(cores), str(listing)],
            n,
            runs,
            sample_memory=True,
        ),
        Variant(
            "cold_1",
            "h2dlint cold (--no-cache), -j 1",
            [*h2dlint_command("--no-cache", *json_out, "-j", "1"), str(tree.path)],
            n,
            serial_runs,
            sample_memory=True,
        ),
        Variant(
            "cold_n",
            f"h2dlint cold (--no-cache), all cores ({cores})",
            [*h2dlint_command("--no-cache", *json_out), str(tree.path)],
            n,
            runs,
            sample_memory=True,
        ),
        Variant(
            "cold_n_no_index",
            f"h2dlint cold, all cores ({cores}), without the project index",
            [
                "env",
                f"{NO_INDEX_VARIABLE}=1",
                *h2dlint_command("--no-cache", *json_out),
                str(tree.path),
            ],
            n,
            runs,
            sample_memory=True,
        ),
    ]
    warm_dir = work / f"{tree.name}-cache"
    warm_cmd = [*h2dlint_command("--cache-dir", str(warm_dir), *json_out), str(tree.path)]

    extra: dict[str, Any] = {}

    cache_file = warm_dir / f"results-v{cache_format()}.json"
    primed: list[int] = []

    def prime() -> None:
        if not cache_file.exists():
            shutil.rmtree(warm_dir, ignore_errors=True)
            sample = run_measured(warm_cmd, cwd=work)
            extra["warm_priming_run"] = asdict(sample)
        primed[:] = [cache_file.stat().st_mtime_ns] if cache_file.exists() else []

    def still_warm() -> str:
        # A run that found every file in the cache does not write it: a rewritten cache means
        # the run was (partly) cold, e.g. h2dlint's code changed after the priming run and so
        # did its build fingerprint. Such a sample is dropped and the cache primed again.
        now = cache_file.stat().st_mtime_ns if cache_file.exists() else None
        if not primed or now != primed[0]:
            shutil.rmtree(warm_dir, ignore_errors=True)
            return "the run rewrote the cache, so it was not warm"
        return ""

    variants.append(
        Variant(
            "warm",
            f"h2dlint warm cache, all cores ({cores})",
            warm_cmd,
            n,
            runs,
            sample_memory=True,
            prepare=prime,
            check=still_warm,
        )
    )
    share = parse_share(tree)
    extra["libcst_parsed"] = {
        "files": share.files,
        "bytes": share.bytes,
        "parsed_files": len(share.parsed_files),
        "parsed_bytes": share.parsed_bytes,
        "marked_files": share.marked_files,
        "marked_bytes": share.marked_bytes,
    }
    few = precommit_files(tree, share)
    extra["precommit_files"] = [str(p.relative_to(tree.path)) for p in few]
    extra["precommit_lines"] = sum(p.read_bytes().count(b"\n") for p in few)
    few_listing = work / f"{tree.name}-precommit-files.txt"
    few_listing.write_text("".join(f"{p}\n" for p in few))
    variants.append(
        Variant(
            "precommit_floor",
            f"libcst parse_module of those {len(few)} files, all cores",
            [sys.executable, script, "_floor", "--jobs", str(min(cores, len(few))), few_listing],
            len(few),
            1 if args.quick else max(runs, 3),
        )
    )
    variants.append(
        Variant(
            "precommit",
            f"h2dlint on {len(few)} files, {extra['precommit_lines']:,} lines (pre-commit)",
            [*h2dlint_command("--no-cache", *json_out), *(str(p) for p in few)],
            len(few),
            1 if args.quick else max(runs, 3),
        )
    )
    # A commit that touched these 10 files, after a whole-tree run with the cache: their own
    # results are stale (dropped from a copy of the warm cache), the rest of the cache (the
    # rule catalogue, the project index's module summaries) is there.
    index_dir = work / f"{tree.name}-precommit-cache"

    def prepare_index_cache() -> None:
        prime()
        shutil.rmtree(index_dir, ignore_errors=True)
        if not warm_dir.exists():
            return
        shutil.copytree(warm_dir, index_dir)
        results = index_dir / cache_file.name
        if results.exists():
            data = json.loads(results.read_text())
            data["entries"] = {}
            results.write_text(json.dumps(data))

    variants.append(
        Variant(
            "precommit_index",
            f"h2dlint on those {len(few)} files, the rest cached (pre-commit, warm index)",
            [
                *h2dlint_command("--cache-dir", str(index_dir), *json_out),
                *(str(p) for p in few),
            ],
            len(few),
            1 if args.quick else max(runs, 3),
            prepare=prepare_index_cache,
        )
    )
    variants.append(
        Variant(
            "version",
            "h2dlint --version",
            [sys.executable, "-m", "h2dlint", "--version"],
            0,
            1 if args.quick else max(runs, 3),
        )
    )
    for peer in peers:
        variant = Variant(
            peer.name,
            f"{peer.label} {peer.version}".strip(),
            [*(peer.command or []), str(tree.path)],
            n,
            args.peer_runs,
            sample_memory=True,
            timeout_s=args.peer_timeout,
            ok_codes=(0, 1) if peer.name in ("torchfix", "fixit") else (0,),
            stdout_path=work / f"{peer.name}.out",
        )
        if peer.command is None:
            variant.failure = peer.problem or "not available"
        variants.append(variant)
    return variants, extra


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def run_rounds(variants: list[Variant], cwd: Path, log: Callable[[str], None]) -> None:
    rounds = max(v.rounds for v in variants)
    for index in range(rounds):
        todo = [v for v in variants if index < v.rounds and not v.failure]
        shift = index % len(todo) if todo else 0
        for variant in todo[shift:] + todo[:shift]:
            for attempt in range(2):
                if variant.prepare is not None:
                    variant.prepare()
                sample = run_measured(
                    variant.command,
                    cwd=cwd,
                    timeout_s=variant.timeout_s,
                    sample_memory=variant.sample_memory,
                    stdout_path=variant.stdout_path,
                )
                problem = variant.check() if variant.check is not None else ""
                if not problem:
                    break
                log(f"  {variant.label}: sample dropped ({problem}){', retrying' * (1 - attempt)}")
            if problem:
                variant.failure = problem
                continue
            if sample.returncode not in variant.ok_codes:
                first = sample.error.strip().splitlines()[-1:] or [""]
                variant.failure = f"exit {sample.returncode}: {first[0][:200]}"
                log(f"  {variant.label}: FAILED ({variant.failure})")
                continue
            variant.samples.append(sample)
            log(
                f"  {time.strftime('%H:%M:%S')} round {index + 1}/{rounds} {variant.label}: "
                f"{sample.wall_s:.2f} s wall, "
                f"{sample.cpu_s:.1f} s CPU, {sample.max_rss_mb:.0f} MB"
            )


# -- the checkout under test ----------------------------------------------------------------


def snapshot_checkout(work: Path) -> tuple[Path | None, str]:
    """Copy the h2dlint that this interpreter imports (with its rules) into ``work`` and
    byte-compile it, so that every measured process runs the same code even while the checkout
    is being edited (an edit between the priming run and a warm run would also change h2dlint's
    build fingerprint and empty the cache). Returns the directory to put first on PYTHONPATH,
    and what it holds; None when the copy is not the code a child would import."""
    import compileall

    import h2dlint.rules

    source = Path(h2dlint.__file__).resolve().parent
    dest = work / "snapshot"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(source, dest / "h2dlint", ignore=ignore)
    rules = Path(next(iter(h2dlint.rules.__path__))).resolve()
    if not (dest / "h2dlint" / "rules").exists():
        shutil.copytree(rules, dest / "h2dlint" / "rules", ignore=ignore)
    compileall.compile_dir(dest, quiet=2)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(dest), os.environ.get("PYTHONPATH", "")]),
    }
    probe = "import h2dlint, h2dlint.rules; print(h2dlint.__file__); print(*h2dlint.rules.__path__)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=work
    )
    seen = done.stdout.split()
    if done.returncode != 0 or not seen or not all(p.startswith(str(dest)) for p in seen):
        return None, f"h2dlint from {source.parent} (no snapshot: {done.stderr.strip()[-200:]})"
    return dest, f"h2dlint from a snapshot of {source.parent} ({source.name}/, rules from {rules})"


# -- the version check and the profile -------------------------------------------------------


def version_imports() -> dict[str, Any]:
    """What ``h2dlint --version`` imports (``-X importtime``)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "h2dlint", "--version"],
        capture_output=True,
        text=True,
        env=CHILD_ENV,
    )
    modules = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return {
        "output": done.stdout.strip(),
        "imports_libcst": "libcst" in modules,
        "imports_torch": "torch" in modules,
        "top_level_modules": len(modules),
    }


PROFILE_BUCKETS = (
    ("startup", "interpreter start-up excluded; imports of h2dlint, click, libcst, rules"),
    ("discovery", "walking the tree, settings, .gitignore"),
    ("read+decode", "reading files (main process), decoding, skip-file check"),
    ("parse:ast", "CPython ast.parse pre-check of every file (h2dlint/pipeline.py)"),
    ("candidates", "byte markers and ast candidates of the rules (h2dlint/candidates.py)"),
    ("parse:libcst", "libcst parse_module"),
    ("positions", "locating reported nodes (h2dlint/context.py Positions)"),
    ("analysis", "shared per-file analyses built on first use (h2dlint/analysis)"),
    ("rules", "visit_*/leave_* handlers of rules/ (minus what they call above)"),
    ("traversal", "the engine's read-only walk of the tree and its dispatch"),
    ("reporting", "locating findings, suppressions, rendering the output"),
    ("other", "everything else: cache keys, result plumbing, garbage collection"),
)


def profile_tree(tree: Tree, work: Path, cprofile_top: int) -> dict[str, Any]:
    out = work / "profile.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "_profile", "--out", str(out)]
    if cprofile_top:
        cmd += ["--cprofile", str(cprofile_top)]
    cmd.append(str(tree.path))
    sample = run_measured(cmd, cwd=work)
    if sample.returncode != 0 or not out.exists():
        return {"error": f"exit {sample.returncode}: {sample.error.strip()[-500:]}"}
    result: dict[str, Any] = json.loads(out.read_text())
    result["tree"] = tree.name
    result["max_rss_mb"] = sample.max_rss_mb
    return result


class _Timers:
    """Exclusive wall time per bucket: a wrapped call's time minus that of wrapped calls
    nested in it."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self._stack: list[float] = []

    def wrap(self, bucket: str, function: Callable[..., Any]) -> Callable[..., Any]:
        stack, totals, counts, clock = self._stack, self.totals, self.counts, time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            stack.append(0.0)
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = clock() - start
                nested = stack.pop()
                totals[bucket] = totals.get(bucket, 0.0) + elapsed - nested
                counts[bucket] = counts.get(bucket, 0) + 1
                if stack:
                    stack[-1] += elapsed

        timed.__wrapped__ = function  # type: ignore[attr-defined]
        return timed

    def patch(self, bucket: str, owner: Any, name: str) -> None:
        setattr(owner, name, self.wrap(bucket, getattr(owner, name)))


def _profile_main(argv: list[str]) -> int:
    """Run h2dlint in this process, -j 1, no cache, with its stages timed (see
    ``PROFILE_BUCKETS``), and optionally under cProfile."""
    parser = argparse.ArgumentParser(prog="bench_lint.py _profile")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--cprofile", type=int, default=0, metavar="N")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    timers = _Timers()
    start = time.perf_counter()
    import libcst

    import h2dlint.check_report as check_report
    import h2dlint.context as context
    import h2dlint.discovery as discovery
    import h2dlint.dispatch as dispatch
    import h2dlint.engine as engine
    import h2dlint.parsing as parsing
    import h2dlint.pipeline as pipeline
    import h2dlint.runner as runner
    from h2dlint.cli import main
    from h2dlint.registry import all_rules

    all_rules()
    timers.totals["startup"] = time.perf_counter() - start

    timers.patch("discovery", discovery.Discovery, "candidates")
    timers.patch("read+decode", runner, "read_bytes")
    for name in ("decode", "has_skip_file"):
        timers.patch("read+decode", pipeline, name)
    timers.patch("parse:ast", pipeline, "cpython_parse")
    timers.patch("parse:ast", parsing, "cpython_parse")
    timers.patch("candidates", pipeline, "candidate_rules")
    timers.patch("parse:libcst", libcst, "parse_module")
    timers.patch("positions", context.Positions, "of")
    timers.patch("analysis", context.FileContext, "shared")
    timers.patch("rules", dispatch._Dispatcher, "_call")
    timers.patch("traversal", engine, "check_module")
    timers.patch("reporting", dispatch, "_locate")
    timers.patch("reporting", context, "parse_suppressions")
    for name in ("to_finding", "physical_lines"):
        timers.patch("reporting", engine, name)
    timers.patch("reporting", check_report, "render")

    argv_h2d = ["check", "--select", "ALL", "--no-cache", "--exit-zero", "-j", "1"]
    argv_h2d += ["--output-format", "json", "--output-file", os.devnull, *args.paths]
    profiler = None
    if args.cprofile:
        import cProfile

        profiler = cProfile.Profile()
    run_start = time.perf_counter()
    with contextlib.suppress(SystemExit):
        if profiler is not None:
            profiler.runcall(main, argv_h2d)
        else:
            main(argv_h2d)
    total = time.perf_counter() - start
    run_wall = time.perf_counter() - run_start
    buckets = {name: timers.totals.get(name, 0.0) for name, _ in PROFILE_BUCKETS}
    buckets["other"] = max(0.0, total - sum(buckets.values()))
    result: dict[str, Any] = {
        "total_s": total,
        "run_s": run_wall,
        "buckets_s": buckets,
        "calls": dict(timers.counts),
        "under_cprofile": profiler is not None,
    }
    if profiler is not None:
        result["cprofile_top"] = _cprofile_top(profiler, args.cprofile)
    args.out.write_text(json.dumps(result, indent=2))
    return 0


def _cprofile_top(profiler: Any, count: int) -> list[dict[str, Any]]:
    import pstats

    stats = pstats.Stats(profiler)
    rows = []
    for (filename, line, function), (_, calls, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append(
            {
                "function": f"{_short(filename)}:{line}({function})",
                "calls": calls,
                "tottime_s": tottime,
                "cumtime_s": cumtime,
            }
        )
    rows.sort(key=lambda r: r["tottime_s"], reverse=True)
    return rows[:count]


def _short(filename: str) -> str:
    for marker in ("site-packages/", "/lib/python"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    with contextlib.suppress(ValueError):
        return str(Path(filename).relative_to(REPO))
    return filename


def _parse_one(path: str) -> int:
    import libcst

    try:
        libcst.parse_module(Path(path).read_bytes())
    except Exception:
        return 0
    return 1


def _floor_main(argv: list[str]) -> int:
    """Parse every listed file with libcst, in one process or a pool of ``--jobs``."""
    parser = argparse.ArgumentParser(prog="bench_lint.py _floor")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("listing", type=Path)
    args = parser.parse_args(argv)
    import libcst  # noqa: F401  (imported before the fork, as h2dlint's workers inherit it)

    paths = args.listing.read_text().splitlines()
    if args.jobs <= 1:
        parsed = sum(_parse_one(p) for p in paths)
    else:
        import multiprocessing

        context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        chunksize = max(1, len(paths) // (args.jobs * 8))
        with context.Pool(args.jobs) as pool:
            parsed = sum(pool.imap_unordered(_parse_one, paths, chunksize=chunksize))
    print(f"parsed {parsed} of {len(paths)}")
    return 0


# -- the table -------------------------------------------------------------------------------


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


@dataclass
class Summary:
    wall_s: float
    wall_min_s: float
    wall_max_s: float
    cpu_s: float
    max_rss_mb: float
    tree_pss_mb: float | None
    runs: int


def summarize(variant: Variant) -> Summary | None:
    if not variant.samples:
        return None
    walls = [s.wall_s for s in variant.samples]
    pss = [s.tree_pss_mb for s in variant.samples if s.tree_pss_mb is not None]
    return Summary(
        wall_s=_median(walls),
        wall_min_s=min(walls),
        wall_max_s=max(walls),
        cpu_s=_median([s.cpu_s for s in variant.samples]),
        max_rss_mb=max(s.max_rss_mb for s in variant.samples),
        tree_pss_mb=max(pss) if pss else None,
        runs=len(walls),
    )


def _ratio(a: Summary | None, b: Summary | None, attr: str = "wall_s") -> float | None:
    if a is None or b is None:
        return None
    denominator = getattr(b, attr)
    return getattr(a, attr) / denominator if denominator > 0 else None


def compute_ratios(summaries: dict[str, Summary | None]) -> dict[str, float | None]:
    cold_n, cold_1 = summaries.get("cold_n"), summaries.get("cold_1")
    return {
        "h2dlint/floor, all cores (wall)": _ratio(cold_n, summaries.get("floor_n")),
        "h2dlint/floor, 1 process (wall)": _ratio(cold_1, summaries.get("floor_1")),
        "h2dlint/floor, all cores (CPU)": _ratio(cold_n, summaries.get("floor_n"), "cpu_s"),
        "h2dlint/TorchFix (wall)": _ratio(cold_n, summaries.get("torchfix")),
        "h2dlint/TorchFix (CPU)": _ratio(cold_n, summaries.get("torchfix"), "cpu_s"),
        "h2dlint/Fixit (wall)": _ratio(cold_n, summaries.get("fixit")),
        "h2dlint/Fixit (CPU)": _ratio(cold_n, summaries.get("fixit"), "cpu_s"),
        "h2dlint/Ruff (wall)": _ratio(cold_n, summaries.get("ruff")),
        "warm/cold (wall)": _ratio(summaries.get("warm"), cold_n),
        "pre-commit, warm index, h2dlint/floor (wall)": _ratio(
            summaries.get("precommit_index"), summaries.get("precommit_floor")
        ),
        "pre-commit, warm index, h2dlint/floor (CPU)": _ratio(
            summaries.get("precommit_index"), summaries.get("precommit_floor"), "cpu_s"
        ),
        "pre-commit h2dlint/floor (wall)": _ratio(
            summaries.get("precommit"), summaries.get("precommit_floor")
        ),
        "-j N speed-up over -j 1": _ratio(cold_1, cold_n),
        # What the project index (cross-module facts, callers) adds to a cold run.
        "project index cost: cold with/without (wall)": _ratio(
            cold_n, summaries.get("cold_n_no_index")
        ),
        "project index cost: cold with/without (CPU)": _ratio(
            cold_n, summaries.get("cold_n_no_index"), "cpu_s"
        ),
    }


def _fmt(value: float | None, spec: str = ".2f", none: str = "-") -> str:
    return none if value is None or value != value else format(value, spec)


def targets(
    summaries: dict[str, Summary | None],
    ratios: dict[str, float | None],
    version: dict[str, Any],
) -> list[tuple[str, str, str, bool | None]]:
    """(target, goal, measured, met)."""
    rows: list[tuple[str, str, str, bool | None]] = []

    def row(
        name: str, goal: str, value: float | None, text: str, ok: Callable[[float], bool]
    ) -> None:
        rows.append(
            (
                name,
                goal,
                text if value is not None else "-",
                ok(value) if value is not None else None,
            )
        )

    r = ratios["h2dlint/floor, all cores (wall)"]
    row("cold, all cores vs parse floor (wall)", "<= 1.0x", r, f"{_fmt(r)}x", lambda v: v <= 1.0)
    r = ratios["h2dlint/floor, all cores (CPU)"]
    row("cold, all cores vs parse floor (CPU)", "<= 1.0x", r, f"{_fmt(r)}x", lambda v: v <= 1.0)
    for peer in ("TorchFix", "Fixit"):
        r = ratios[f"h2dlint/{peer} (wall)"]
        speedup = 1 / r if r else None
        row(
            f"faster than {peer}",
            ">= 8x",
            speedup,
            f"{_fmt(speedup, '.1f')}x",
            lambda v: v >= 8,
        )
    r = ratios["warm/cold (wall)"]
    speedup = 1 / r if r else None
    row("warm cache vs cold", ">= 20x", speedup, f"{_fmt(speedup, '.1f')}x", lambda v: v >= 20)
    pre = summaries.get("precommit")
    value = pre.wall_s if pre else None
    row("pre-commit, 10 files, wall", "< 0.5 s", value, f"{_fmt(value)} s", lambda v: v < 0.5)
    pre = summaries.get("precommit_index")
    value = pre.wall_s if pre else None
    row(
        "pre-commit, 10 files, warm index, wall",
        "< 0.5 s",
        value,
        f"{_fmt(value)} s",
        lambda v: v < 0.5,
    )
    floor = summaries.get("precommit_floor")
    if floor is not None:
        rows.append(
            (
                "  (the same files' libcst floor: start-up, import, parse)",
                "",
                f"{_fmt(floor.wall_s)} s",
                None,
            )
        )
    heavy = version.get("imports_libcst") or version.get("imports_torch")
    rows.append(
        (
            "--version imports neither libcst nor torch",
            "yes",
            "no" if heavy else "yes",
            not heavy if version else None,
        )
    )
    rss = [s.max_rss_mb for k, s in summaries.items() if k.startswith("cold") and s]
    value = max(rss) if rss else None
    row("peak RSS per process", "< 300 MB", value, f"{_fmt(value, '.0f')} MB", lambda v: v < 300)
    return rows


def render_tree(
    tree: Tree,
    variants: list[Variant],
    summaries: dict[str, Summary | None],
    ratios: dict[str, float | None],
    extra: dict[str, Any],
) -> str:
    out = [
        f"## {tree.name}: {len(tree.files):,} files, {tree.lines:,} lines, "
        f"{tree.bytes / 1e6:.1f} MB  ({tree.description})",
        "",
        f"{'variant':<50} {'wall s (median, min-max)':>26} {'files/s':>8} {'CPU s':>7} "
        f"{'max RSS':>8} {'tree PSS':>9} {'runs':>4}",
    ]
    for variant in variants:
        s = summaries.get(variant.key)
        if s is None:
            out.append(f"{variant.label:<50} {'n/a: ' + (variant.failure or 'no sample')}")
            continue
        spread = f"{s.wall_s:.2f} ({s.wall_min_s:.2f}-{s.wall_max_s:.2f})"
        rate = f"{variant.files / s.wall_s:,.0f}" if variant.files and s.wall_s else "-"
        pss = f"{s.tree_pss_mb:.0f} MB" if s.tree_pss_mb is not None else "-"
        out.append(
            f"{variant.label:<50} {spread:>26} {rate:>8} {s.cpu_s:>7.1f} "
            f"{s.max_rss_mb:>5.0f} MB {pss:>9} {s.runs:>4}"
        )
    priming = extra.get("warm_priming_run")
    if priming:
        out.append(
            f"{'  (warm cache primed by one cold run writing it:':<50} "
            f"{priming['wall_s']:.2f} s wall, {priming['max_rss_mb']:.0f} MB)"
        )
    load = extra.get("load_average_1min")
    if load:
        out.append(f"(1-minute load average: {load[0]:.2f} before the runs, {load[1]:.2f} after)")
    parsed = extra.get("libcst_parsed")
    if parsed and parsed["files"]:
        out.append(
            f"(libcst parses {parsed['parsed_files']:,} of {parsed['files']:,} files, "
            f"{100 * parsed['parsed_bytes'] / max(parsed['bytes'], 1):.0f}% of the bytes; "
            f"the byte markers alone would parse {parsed['marked_files']:,}, "
            f"{100 * parsed['marked_bytes'] / max(parsed['bytes'], 1):.0f}%)"
        )
    out += ["", "ratios (medians):"]
    for name, value in ratios.items():
        if value is not None:
            inverse = f"  (= {1 / value:.1f}x the other way)" if value and value < 1 else ""
            out.append(f"  {name:<36} {value:8.3f}{inverse}")
    return "\n".join(out)


def render_profile(profile: dict[str, Any]) -> str:
    if "error" in profile:
        return f"## profile: failed: {profile['error']}"
    buckets: dict[str, float] = profile["buckets_s"]
    total = profile["total_s"]
    out = [
        f"## where h2dlint spends its time: {profile['tree']}, -j 1, no cache, in-process "
        f"({total:.1f} s, {profile['max_rss_mb']:.0f} MB max RSS"
        f"{', under cProfile' if profile.get('under_cprofile') else ''})",
        "",
    ]
    for name, what in PROFILE_BUCKETS:
        seconds = buckets.get(name, 0.0)
        share = 100 * seconds / total if total else 0.0
        out.append(f"  {name:<13} {seconds:8.2f} s {share:5.1f}%  {what}")
    calls = profile.get("calls", {})
    if calls:
        out.append(
            f"\n  calls: {calls.get('parse:ast', 0):,} files ast-parsed, "
            f"{calls.get('parse:libcst', 0):,} libcst-parsed, "
            f"{calls.get('positions', 0):,} position passes, "
            f"{calls.get('rules', 0):,} rule handler calls"
        )
    top = profile.get("cprofile_top")
    if top:
        out += ["", "  top functions by own time (cProfile):"]
        for row in top:
            out.append(
                f"    {row['tottime_s']:7.2f} s own {row['cumtime_s']:7.2f} s cum "
                f"{row['calls']:>9,}  {row['function']}"
            )
    return "\n".join(out)


def render_targets(rows: list[tuple[str, str, str, bool | None]], tree: str) -> str:
    out = [f"## targets ({tree})", ""]
    for name, goal, measured, met in rows:
        verdict = ("n/a" if goal else "") if met is None else ("met" if met else "MISSED")
        out.append(f"  {name:<44} {goal:>9} {measured:>10}  {verdict}")
    return "\n".join(out)


def machine_line() -> str:
    try:
        import h2dlint

        where = Path(h2dlint.__file__).resolve().parent.parent
        h2d = f"h2dlint {h2dlint.__version__} from {where}"
    except ImportError:  # pragma: no cover
        h2d = "h2dlint not importable"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{datetime.date.today().isoformat()}: {available_cores()} cores "
        f"({platform.machine()}), Python {platform.python_version()}, "
        f"libcst {_dist_version('libcst')}, {h2d}; load average {load}"
    )


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


# -- main ------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--trees",
        help=f"comma-separated corpus trees (default: {','.join(DEFAULT_TREES)}; "
        "any package of scripts/fetch_corpus.py, or mixed)",
    )
    parser.add_argument(
        "--tree", action="append", default=[], help="a local directory to benchmark (repeatable)"
    )
    parser.add_argument("--runs", type=int, default=3, help="rounds per variant (default 3)")
    parser.add_argument("--peer-runs", type=int, help="rounds per peer (default: --runs)")
    parser.add_argument(
        "--serial-runs",
        type=int,
        help="rounds of the two 1-process variants, the slowest (default: --runs)",
    )
    parser.add_argument("--quick", action="store_true", help="one round of everything")
    parser.add_argument("--no-peers", action="store_true", help="skip TorchFix, Fixit and Ruff")
    parser.add_argument(
        "--peers", default=",".join(PEERS), help=f"peers to run (default {','.join(PEERS)})"
    )
    parser.add_argument("--peer-timeout", type=float, default=PEER_TIMEOUT_S, help="seconds")
    parser.add_argument("--no-profile", action="store_true", help="skip the profile summary")
    parser.add_argument(
        "--cprofile",
        type=int,
        default=0,
        metavar="N",
        help="profile under cProfile too and list the top N functions (slower)",
    )
    parser.add_argument("--corpus-dir", help="corpus cache (default ~/.cache/h2dlint/corpus)")
    parser.add_argument(
        "--bench-dir",
        type=Path,
        default=CACHE_ROOT / "bench",
        help="where the mixed tree is merged (default ~/.cache/h2dlint/bench)",
    )
    parser.add_argument(
        "--peer-venvs",
        type=Path,
        default=CACHE_ROOT / "bench-venv",
        help="where peers are installed (default ~/.cache/h2dlint/bench-venv)",
    )
    parser.add_argument("--json", type=Path, help="write every sample and summary here")
    parser.add_argument(
        "--no-snapshot",
        action="store_true",
        help="run the checkout's files as they are, instead of a copy taken at the start",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.runs = 1
        args.peer_runs = 1
    if args.peer_runs is None:
        args.peer_runs = args.runs
    if args.runs < 1 or args.peer_runs < 1:
        parser.error("--runs and --peer-runs must be at least 1")
    args.bench_dir = args.bench_dir.expanduser()
    args.peer_venvs = args.peer_venvs.expanduser()
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_floor"]:
        return _floor_main(argv[1:])
    if argv[:1] == ["_profile"]:
        return _profile_main(argv[1:])
    args = parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    args.bench_dir.mkdir(parents=True, exist_ok=True)
    trees = resolve_trees(args)
    peers: list[Peer] = []
    if not args.no_peers:
        for name in [p.strip() for p in args.peers.split(",") if p.strip()]:
            if name not in PEERS:
                raise SystemExit(f"bench_lint: unknown peer {name!r}; known: {', '.join(PEERS)}")
            args.peer_venvs.mkdir(parents=True, exist_ok=True)
            peers.append(install_peer(name, args.peer_venvs, log))
    global CHILD_ENV
    header = machine_line() + "; rules: " + ",".join(rule_codes())
    report: dict[str, Any] = {"machine": header, "version": {}, "trees": []}
    sections = [f"# h2dlint benchmark\n\n{header}"]
    with tempfile.TemporaryDirectory(prefix="h2dlint-bench-") as tmp:
        work = Path(tmp)
        if not args.no_snapshot:
            snapshot, what = snapshot_checkout(work)
            if snapshot is not None:
                CHILD_ENV = {
                    **os.environ,
                    "PYTHONPATH": os.pathsep.join(
                        p for p in (str(snapshot), os.environ.get("PYTHONPATH", "")) if p
                    ),
                }
            header += f"\n{what}"
            sections[0] = f"# h2dlint benchmark\n\n{header}"
            report["machine"] = header
        print(sections[0] + "\n", flush=True)
        version = version_imports()
        report["version"] = version
        for tree in trees:
            log(f"{tree.name}: {len(tree.files):,} files, {tree.lines:,} lines")
            tree_work = work / tree.name
            tree_work.mkdir()
            variants, extra = build_variants(tree, peers, args, tree_work)
            load_before = os.getloadavg()[0]
            run_rounds(variants, tree_work, log)
            extra["load_average_1min"] = [load_before, os.getloadavg()[0]]
            summaries = {v.key: summarize(v) for v in variants}
            ratios = compute_ratios(summaries)
            table = render_tree(tree, variants, summaries, ratios, extra)
            goals = targets(summaries, ratios, version)
            print(table + "\n\n" + render_targets(goals, tree.name) + "\n", flush=True)
            sections += [table, render_targets(goals, tree.name)]
            report["trees"].append(
                {
                    "name": tree.name,
                    "path": str(tree.path),
                    "description": tree.description,
                    "files": len(tree.files),
                    "lines": tree.lines,
                    "bytes": tree.bytes,
                    "variants": {
                        v.key: {
                            "label": v.label,
                            "command": v.command,
                            "files": v.files,
                            "failure": v.failure,
                            "samples": [asdict(s) for s in v.samples],
                            "summary": asdict(s) if (s := summaries[v.key]) else None,
                        }
                        for v in variants
                    },
                    "ratios": ratios,
                    "targets": [
                        {"target": t, "goal": g, "measured": m, "met": ok} for t, g, m, ok in goals
                    ],
                    **extra,
                }
            )
        if not args.no_profile and trees:
            largest = max(trees, key=lambda t: t.lines)
            log(f"profiling h2dlint on {largest.name} ...")
            profile = profile_tree(largest, work, args.cprofile)
            report["profile"] = profile
            text = render_profile(profile)
            print(text + "\n", flush=True)
            sections.append(text)
    report["version_line"] = (
        f"--version: {version.get('output')}, imports libcst: {version.get('imports_libcst')}, "
        f"imports torch: {version.get('imports_torch')}"
    )
    print(report["version_line"])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

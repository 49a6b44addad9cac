"""Lint trees with and without the ast candidate filter and diff the findings.

The candidate filter (``h2dlint/candidates.py``, ``Rule.candidates``) decides on CPython's ast
which rules could flag a file, so that only files with a candidate are parsed with libcst. It
must never change what is reported. This script checks that on whole trees: each tree is linted
twice with every rule (``--select ALL``, no cache), once with the byte prefilter alone (what
h2dlint did before the filter) and once with both, and every finding must be the same. It also
prints how many files each run parsed with libcst, and their CPU time.

    python scripts/check_candidates.py --corpus          # every package of the corpus cache
    python scripts/check_candidates.py path/to/tree ...  # local trees
    python scripts/check_candidates.py --corpus -j 1     # in one process

Exit 0 when no finding differs, 1 otherwise. Not part of the test run: the corpus is about
10,000 files. vllm, vllm-omni and sglang are never used.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fetch_corpus  # beside this script: run as `python scripts/check_candidates.py`

# Corpus folders are named package-version: a reserved package's own name begins them.
RESERVED = tuple(sorted(fetch_corpus.RESERVED))


@dataclass
class Outcome:
    findings: list[dict[str, Any]]
    files: int
    parsed: int
    cpu_s: float
    wall_s: float


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def lint(tree: Path, *, candidates: bool, jobs: int) -> Outcome:
    from h2dlint.config import Overrides, SettingsResolver
    from h2dlint.discovery import Discovery
    from h2dlint.pipeline import Mode
    from h2dlint.runner import RunOptions, run

    def warn(message: str) -> None:
        print(f"  warning: {message}", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="h2dlint-candidates-") as cwd:
        resolver = SettingsResolver(Overrides(select=("ALL",)), None, Path(cwd))
        discovery = Discovery(resolver, Path(cwd))
        found = discovery.candidates([tree])
        options = RunOptions(mode=Mode.CHECK, jobs=jobs, candidates=candidates)
        cpu, wall = _cpu(), time.perf_counter()
        result = run(found, options, warn)
        cpu, wall = _cpu() - cpu, time.perf_counter() - wall
    findings = [{"path": f.path, **f.to_dict()} for f in result.findings]
    return Outcome(findings, result.files_checked, result.files_parsed, cpu, wall)


def _key(finding: dict[str, Any]) -> str:
    return json.dumps(finding, sort_keys=True)


def compare(tree: Path, jobs: int) -> tuple[int, Outcome, Outcome]:
    before = lint(tree, candidates=False, jobs=jobs)
    after = lint(tree, candidates=True, jobs=jobs)
    old = {_key(f) for f in before.findings}
    new = {_key(f) for f in after.findings}
    for gone in sorted(old - new):
        print(f"  only without the filter: {gone}")
    for extra in sorted(new - old):
        print(f"  only with the filter:    {extra}")
    differences = len(old ^ new)
    if len(before.findings) != len(after.findings) and not differences:
        differences = abs(len(before.findings) - len(after.findings))
        print(f"  duplicate findings differ: {len(before.findings)} vs {len(after.findings)}")
    return differences, before, after


def corpus_trees() -> list[Path]:
    root = fetch_corpus.corpus_dir()
    trees = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    return [p for p in trees if not p.name.lower().startswith(RESERVED)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--corpus", action="store_true", help="every package of the corpus cache")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="processes (0: all cores)")
    parser.add_argument("--json", type=Path, help="write the per-tree counts here")
    args = parser.parse_args(argv)
    trees = [t.resolve() for t in args.trees] + (corpus_trees() if args.corpus else [])
    if not trees:
        parser.error("give trees or --corpus")
    for tree in trees:
        if tree.name.lower().startswith(RESERVED):
            parser.error(f"{tree.name} is reserved for independent evaluation")
    rows = []
    total = 0
    header = (
        f"{'tree':<26} {'files':>6} {'findings':>8} {'parsed before':>13} {'parsed after':>12} "
        f"{'CPU s before':>12} {'CPU s after':>11} {'differences':>11}"
    )
    print(header)
    for tree in trees:
        differences, before, after = compare(tree, args.jobs)
        total += differences
        rows.append(
            {
                "tree": tree.name,
                "files": before.files,
                "findings": len(before.findings),
                "parsed_before": before.parsed,
                "parsed_after": after.parsed,
                "cpu_before_s": round(before.cpu_s, 2),
                "cpu_after_s": round(after.cpu_s, 2),
                "differences": differences,
            }
        )
        print(
            f"{tree.name:<26} {before.files:>6} {len(before.findings):>8} {before.parsed:>13} "
            f"{after.parsed:>12} {before.cpu_s:>12.1f} {after.cpu_s:>11.1f} {differences:>11}",
            flush=True,
        )
    files = sum(r["files"] for r in rows)
    parsed_before = sum(r["parsed_before"] for r in rows)
    parsed_after = sum(r["parsed_after"] for r in rows)
    print(
        f"{'total':<26} {files:>6} {sum(r['findings'] for r in rows):>8} {parsed_before:>13} "
        f"{parsed_after:>12} {sum(r['cpu_before_s'] for r in rows):>12.1f} "
        f"{sum(r['cpu_after_s'] for r in rows):>11.1f} {total:>11}"
    )
    if args.json:
        args.json.write_text(json.dumps({"trees": rows, "differences": total}, indent=2) + "\n")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())

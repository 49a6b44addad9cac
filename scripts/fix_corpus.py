"""Run ``h2dlint --fix --unsafe-fixes`` over whole real packages and check that nothing breaks.

Each corpus package (downloaded by ``scripts/fetch_corpus.py``, cached in
``~/.cache/h2dlint/corpus``) is copied into a temporary directory and put through:

1. a check (JSON output): the findings before, per code;
2. ``python -m h2dlint --fix --unsafe-fixes --no-cache --exit-zero``: the findings left, per code,
   and the files it changed;
3. every changed file must parse with libcst and ``compile()`` (when the original compiled);
4. the same fix run again must change nothing.

A crash is any of: exit code 2, an ``E900`` finding, a traceback on standard error, output that
is not the JSON report. The script exits 1 on any crash or failed property, 0 otherwise:

    python scripts/fix_corpus.py                      # every package
    python scripts/fix_corpus.py timm accelerate      # some of them
    python scripts/fix_corpus.py --keep /tmp/fixed    # keep the fixed copies there

Not part of the default test run: the whole corpus is about 7,800 files and 120 MB of Python.
vllm, vllm-omni and sglang are never used (fetch_corpus refuses them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fetch_corpus  # beside this script: run as `python scripts/fix_corpus.py`

INTERNAL_ERROR = "E900"


@dataclass
class Run:
    """One h2dlint run over one package copy."""

    returncode: int
    findings: list[dict[str, Any]]
    stderr: str
    seconds: float
    problems: list[str] = field(default_factory=list)


@dataclass
class PackageReport:
    name: str
    files: int = 0
    changed: int = 0
    before: Counter[str] = field(default_factory=Counter)
    after: Counter[str] = field(default_factory=Counter)
    second_pass_changed: int = 0
    not_parsing: list[str] = field(default_factory=list)
    not_compiling: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return bool(
            self.crashes or self.not_parsing or self.not_compiling or self.second_pass_changed
        )


def h2dlint(target: Path, *args: str, jobs: int) -> Run:
    """``python -m h2dlint`` on ``target``, run from its parent (so that no module of the
    package shadows one h2dlint imports), with JSON output."""
    command = [
        sys.executable,
        "-m",
        "h2dlint",
        "--no-cache",
        "--exit-zero",
        "--no-color",
        "-j",
        str(jobs),
        "--output-format",
        "json",
        *args,
        target.name,
    ]
    start = time.monotonic()
    proc = subprocess.run(command, cwd=target.parent, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    run = Run(proc.returncode, [], proc.stderr, seconds)
    try:
        run.findings = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        run.problems.append(f"output is not JSON: {proc.stdout[:200]!r}")
    if proc.returncode != 0:
        run.problems.append(f"exit code {proc.returncode}: {proc.stderr.strip()[-500:]}")
    if "Traceback" in proc.stderr:
        run.problems.append(f"traceback on stderr: {proc.stderr.strip()[-1500:]}")
    for finding in run.findings:
        if finding.get("code") == INTERNAL_ERROR:
            run.problems.append(
                f"E900 {finding.get('filename')}:{finding['location']['row']}: {finding['message']}"
            )
    return run


def snapshot(tree: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(tree)): path.read_bytes()
        for path in sorted(tree.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def parses_with_libcst(data: bytes) -> str | None:
    import libcst as cst

    try:
        cst.parse_module(data)
    except Exception as exc:  # ParserSyntaxError, or anything else libcst raises
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return None


def compiles(data: bytes, name: str) -> str | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(data, name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"
        except (RecursionError, MemoryError) as exc:
            return f"{type(exc).__name__}"
    return None


def per_code(findings: list[dict[str, Any]]) -> Counter[str]:
    return Counter(str(finding["code"]) for finding in findings)


def check_package(name: str, source: Path, workdir: Path, jobs: int) -> PackageReport:
    report = PackageReport(name)
    tree = workdir / name
    shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".complete"))
    original = snapshot(tree)
    report.files = sum(1 for rel in original if rel.endswith((".py", ".pyi")))

    checked = h2dlint(tree, jobs=jobs)
    report.before = per_code(checked.findings)
    report.crashes += [f"check: {problem}" for problem in checked.problems]

    fixed = h2dlint(tree, "--fix", "--unsafe-fixes", jobs=jobs)
    report.after = per_code(fixed.findings)
    report.crashes += [f"--fix: {problem}" for problem in fixed.problems]
    after_fix = snapshot(tree)
    if set(after_fix) != set(original):
        added = sorted(set(after_fix) - set(original))
        lost = sorted(set(original) - set(after_fix))
        report.crashes.append(f"--fix added files {added[:5]} or lost files {lost[:5]}")
    changed = [rel for rel in original if after_fix.get(rel, original[rel]) != original[rel]]
    report.changed = len(changed)
    for rel in changed:
        new = after_fix[rel]
        error = parses_with_libcst(new)
        if error is not None:
            report.not_parsing.append(f"{rel}: {error}")
        if compiles(original[rel], rel) is None:
            error = compiles(new, rel)
            if error is not None:
                report.not_compiling.append(f"{rel}: {error}")

    again = h2dlint(tree, "--fix", "--unsafe-fixes", jobs=jobs)
    report.crashes += [f"second --fix: {problem}" for problem in again.problems]
    after_second = snapshot(tree)
    second = [rel for rel in after_fix if after_second.get(rel) != after_fix[rel]]
    report.second_pass_changed = len(second)
    if second:
        report.crashes.append(f"second --fix changed {second[:10]}")
    report.seconds = checked.seconds + fixed.seconds + again.seconds
    return report


def _codes(counter: Counter[str]) -> str:
    return ", ".join(f"{code} {count}" for code, count in sorted(counter.items())) or "none"


def print_report(report: PackageReport) -> None:
    status = "FAIL" if report.failed else "ok"
    print(
        f"{report.name}: {status}: {report.files} files, {report.changed} changed, "
        f"second pass changed {report.second_pass_changed}, {len(report.crashes)} crashes, "
        f"{report.seconds:.0f} s"
    )
    print(f"  before: {_codes(report.before)}")
    print(f"  after:  {_codes(report.after)}")
    for label, items in (
        ("crash", report.crashes),
        ("does not parse", report.not_parsing),
        ("does not compile", report.not_compiling),
    ):
        for item in items:
            print(f"  {label}: {item}")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="corpus packages (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="h2dlint -j (0: all cores)")
    parser.add_argument("--keep", type=Path, help="copy the packages here and keep them")
    args = parser.parse_args(argv)
    names = args.names or list(fetch_corpus.PACKAGES)
    for name in names:
        if name.lower() in fetch_corpus.RESERVED:
            parser.error(f"{name} is reserved for independent evaluation")
        if name not in fetch_corpus.PACKAGES:
            parser.error(f"unknown package {name}; known: {', '.join(fetch_corpus.PACKAGES)}")

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="h2dlint-fix-corpus-"))
    workdir.mkdir(parents=True, exist_ok=True)
    reports = []
    try:
        for name in names:
            source = fetch_corpus.fetch(name)
            report = check_package(source.name, source, workdir, args.jobs)
            print_report(report)
            reports.append(report)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)

    total_before: Counter[str] = Counter()
    total_after: Counter[str] = Counter()
    for report in reports:
        total_before += report.before
        total_after += report.after
    failed = [report.name for report in reports if report.failed]
    print(
        f"total: {sum(r.files for r in reports)} files, {sum(r.changed for r in reports)} "
        f"changed, second pass changed {sum(r.second_pass_changed for r in reports)}, "
        f"{sum(len(r.crashes) for r in reports)} crashes, "
        f"{sum(len(r.not_parsing) + len(r.not_compiling) for r in reports)} broken files, "
        f"{sum(r.seconds for r in reports):.0f} s"
    )
    print(f"  before: {_codes(total_before)}")
    print(f"  after:  {_codes(total_after)}")
    print("FAILED: " + ", ".join(failed) if failed else "all packages passed")
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.pop("H2DLINT_CACHE_DIR", None)
    sys.exit(main())

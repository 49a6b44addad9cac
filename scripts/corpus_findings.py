"""Store every finding on the pinned corpus packages (one JSON file each), and diff two stores.

A structural change (moving code between modules, splitting the engine) must not change what is
reported. Take a snapshot before the change and one after, then diff them:

    python scripts/corpus_findings.py snapshot /tmp/before        # every rule, no cache, -j 1
    python scripts/corpus_findings.py snapshot /tmp/after
    python scripts/corpus_findings.py diff /tmp/before /tmp/after

``snapshot`` lints one package at a time with ``python -m h2dlint check --select ALL
--no-cache -j 1 --output-format json`` (the interpreter that runs this script, so a copy of the
code on ``PYTHONPATH`` is what runs) and writes ``<package>.json``. ``diff`` prints every finding
present in one store and not the other; exit 0 when the stores are the same, 1 otherwise.
vllm, vllm-omni and sglang are never used.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import fetch_corpus  # beside this script: run as `python scripts/corpus_findings.py`


def snapshot(out: Path, packages: list[str], jobs: int) -> int:
    out.mkdir(parents=True, exist_ok=True)
    for name in packages:
        tree = fetch_corpus.package_dir(name)
        if not tree.is_dir():
            print(f"{name}: {tree} is missing (fetch_corpus.py fetches it)", file=sys.stderr)
            return 2
        cmd = [sys.executable, "-m", "h2dlint", "check", "--select", "ALL", "--no-cache"]
        cmd += ["-j", str(jobs), "--output-format", "json", "--exit-zero", str(tree)]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=tree)
        if done.returncode != 0:
            print(f"{name}: exit {done.returncode}\n{done.stderr}", file=sys.stderr)
            return 2
        findings = json.loads(done.stdout)
        (out / f"{name}.json").write_text(json.dumps(findings, indent=1, sort_keys=True))
        print(f"{name}: {len(findings)} findings", flush=True)
    return 0


def _keys(path: Path) -> list[str]:
    data: list[dict[str, Any]] = json.loads(path.read_text())
    return sorted(json.dumps(finding, sort_keys=True) for finding in data)


def diff(before: Path, after: Path) -> int:
    differences = 0
    names = sorted({p.name for p in before.glob("*.json")} | {p.name for p in after.glob("*.json")})
    for name in names:
        if not (before / name).is_file() or not (after / name).is_file():
            print(f"{name}: in one store only")
            differences += 1
            continue
        old, new = _keys(before / name), _keys(after / name)
        gone = sorted(set(old) - set(new))
        extra = sorted(set(new) - set(old))
        for key in gone:
            print(f"{name}: only before: {key}")
        for key in extra:
            print(f"{name}: only after:  {key}")
        if not gone and not extra and len(old) != len(new):
            print(f"{name}: duplicate findings differ: {len(old)} vs {len(new)}")
            differences += 1
        differences += len(gone) + len(extra)
        print(f"{name}: {len(old)} before, {len(new)} after, {len(gone) + len(extra)} differ")
    return 1 if differences else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    take = commands.add_parser("snapshot", help="lint the pinned packages, one JSON each")
    take.add_argument("out", type=Path)
    take.add_argument("packages", nargs="*", help="default: the 12 pinned packages")
    take.add_argument("-j", "--jobs", type=int, default=1)
    compare = commands.add_parser("diff", help="findings in one store and not the other")
    compare.add_argument("before", type=Path)
    compare.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "snapshot":
        packages = args.packages or list(fetch_corpus.PACKAGES)
        return snapshot(args.out, packages, args.jobs)
    return diff(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())

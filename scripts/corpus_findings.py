"""Store h2dlint's findings on the pinned corpus packages, and compare two stored sets.

A speed change (the candidate filter, the project index, the cache) must not change what is
reported. ``save`` lints each of the 12 pinned packages of ``scripts/fetch_corpus.py`` with every
rule (``--select ALL``, no cache) in a process of its own and writes its findings as JSON, one file
per package; ``diff`` compares two such directories finding by finding:

    python scripts/corpus_findings.py save --out /tmp/before -j 1
    python scripts/corpus_findings.py save --out /tmp/after -j 1 --python /other/venv/bin/python
    python scripts/corpus_findings.py diff /tmp/before /tmp/after

``save`` runs ``python -m h2dlint`` with the interpreter given (default: this one), so a snapshot
of an older checkout can be measured by putting it first on ``PYTHONPATH``. It also records each
package's wall time and how many files libcst parsed. Exit status of ``diff``: 0 when no finding
differs. Not part of the test run. vllm, vllm-omni and sglang are never used.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import fetch_corpus  # beside this script: run as `python scripts/corpus_findings.py`


def _key(finding: dict[str, Any]) -> str:
    return json.dumps(finding, sort_keys=True)


def save(out: Path, python: str, jobs: int, packages: list[str]) -> int:
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name in packages:
        tree = fetch_corpus.package_dir(name)
        if not tree.is_dir():
            print(f"{name}: {tree} missing (run scripts/fetch_corpus.py)", file=sys.stderr)
            failed += 1
            continue
        with tempfile.TemporaryDirectory(prefix="h2dlint-findings-") as cwd:
            report = Path(cwd) / "findings.json"
            command = [
                python,
                "-m",
                "h2dlint",
                "check",
                "--select",
                "ALL",
                "--no-cache",
                "--exit-zero",
                "--output-format",
                "json",
                "--output-file",
                str(report),
                "-j",
                str(jobs),
                str(tree),
            ]
            start = time.perf_counter()
            done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
            wall = time.perf_counter() - start
            if done.returncode != 0 or not report.exists():
                print(f"{name}: exit {done.returncode}\n{done.stderr[-2000:]}", file=sys.stderr)
                failed += 1
                continue
            findings = json.loads(report.read_text())
        root = str(tree) + "/"
        for finding in findings:  # paths relative to the package: comparable across machines
            for field in ("filename", "path"):
                value = finding.get(field)
                if isinstance(value, str) and value.startswith(root):
                    finding[field] = value[len(root) :]
        findings.sort(key=_key)
        record = {"package": tree.name, "wall_s": round(wall, 2), "findings": findings}
        (out / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
        print(f"{tree.name:<26} {len(findings):>6} findings {wall:>8.1f} s", flush=True)
    return 1 if failed else 0


def diff(before: Path, after: Path) -> int:
    differences = 0
    total = 0
    for old_file in sorted(before.glob("*.json")):
        new_file = after / old_file.name
        if not new_file.exists():
            print(f"{old_file.stem}: missing in {after}")
            differences += 1
            continue
        old = json.loads(old_file.read_text())
        new = json.loads(new_file.read_text())
        old_keys = sorted(_key(f) for f in old["findings"])
        new_keys = sorted(_key(f) for f in new["findings"])
        total += len(old_keys)
        gone = sorted(set(old_keys) - set(new_keys))
        extra = sorted(set(new_keys) - set(old_keys))
        for line in gone:
            print(f"  {old_file.stem} only before: {line}")
        for line in extra:
            print(f"  {old_file.stem} only after:  {line}")
        count = len(gone) + len(extra)
        if not count and old_keys != new_keys:
            count = 1
            print(f"  {old_file.stem}: duplicate findings differ")
        differences += count
        print(
            f"{old['package']:<26} {len(old_keys):>6} / {len(new_keys):>6} findings "
            f"{old['wall_s']:>7.1f} / {new['wall_s']:>7.1f} s  differences {count}"
        )
    print(f"total: {total} findings before, {differences} differences")
    return 1 if differences else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    saving = commands.add_parser("save", help="lint the pinned packages, store their findings")
    saving.add_argument("--out", type=Path, required=True)
    saving.add_argument("--python", default=sys.executable, help="interpreter running h2dlint")
    saving.add_argument("-j", "--jobs", type=int, default=1)
    saving.add_argument("packages", nargs="*", help="some of the pinned packages (default: all)")
    diffing = commands.add_parser("diff", help="compare two stored sets of findings")
    diffing.add_argument("before", type=Path)
    diffing.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "diff":
        return diff(args.before, args.after)
    packages = args.packages or sorted(fetch_corpus.PACKAGES)
    for name in packages:
        if name.lower() in fetch_corpus.RESERVED or name not in fetch_corpus.PACKAGES:
            parser.error(f"{name} is not one of the pinned corpus packages")
    return save(args.out, args.python, args.jobs, packages)


if __name__ == "__main__":
    sys.exit(main())

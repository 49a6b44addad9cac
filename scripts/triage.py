"""Run h2dlint over the real-code corpus and write every finding with its context, for triage.

    python scripts/triage.py                       # all corpus packages, all rules
    python scripts/triage.py timm peft --select HTD101 --out /tmp/triage.md

Each finding is printed with a few lines of context so that it can be labelled a true or false
positive; labelled lines go to tests/data/labels/<CODE>.tsv (see tests/test_labels.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fetch_corpus import PACKAGES, fetch


def run_h2dlint(tree: Path, select: str | None) -> list[dict[str, object]]:
    cmd = [sys.executable, "-m", "h2dlint", "--no-cache", "--exit-zero", "--output-format", "json"]
    if select:
        cmd += ["--select", select]
    proc = subprocess.run([*cmd, str(tree)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"h2dlint failed on {tree}:\n{proc.stderr}")
    return json.loads(proc.stdout)


def context(path: Path, row: int, around: int) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    start, end = max(row - 1 - around, 0), min(row + around, len(lines))
    return "\n".join(
        f"{'>' if i + 1 == row else ' '}{i + 1:5d} {lines[i]}" for i in range(start, end)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", help="corpus packages (default: all)")
    parser.add_argument("--select", help="rule selector, e.g. HTD101")
    parser.add_argument("--context", type=int, default=6, help="lines of context")
    parser.add_argument("--out", type=Path, help="write the report here (default: stdout)")
    args = parser.parse_args(argv)
    counts: Counter[tuple[str, str]] = Counter()
    chunks: list[str] = []
    for name in args.packages or list(PACKAGES):
        tree = fetch(name)
        for item in run_h2dlint(tree, args.select):
            path = Path(str(item["filename"]))
            rel = path.relative_to(tree).as_posix()
            row = int(item["location"]["row"])  # type: ignore[index]
            code = str(item["code"])
            counts[(name, code)] += 1
            chunks.append(
                f"### {name} {rel}:{row} {code}\n{item['message']}\n```\n"
                f"{context(path, row, args.context)}\n```\n"
            )
    summary = ["| package | code | findings |", "| --- | --- | --- |"]
    summary += [f"| {p} | {c} | {n} |" for (p, c), n in sorted(counts.items())]
    report = "\n".join(summary) + "\n\n" + "\n".join(chunks)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
        print("\n".join(summary))
    else:
        print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

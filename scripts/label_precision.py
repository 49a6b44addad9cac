"""Precision of every rule on the labelled set, split by confidence.

    python scripts/label_precision.py            # all labelled packages, 2 at a time
    python scripts/label_precision.py --jobs 8 lmdeploy transformers
    python scripts/label_precision.py --hot-cold   # also split by hot and cold code

To score another build, run it from outside a checkout with that build first on the path:
``cd /tmp && PYTHONPATH=/tmp/build python /path/to/scripts/label_precision.py``.

Runs ``h2dlint check --select ALL --no-cache -j 1 --output-format json`` on the labelled files of
each package (``tests/data/labels/*.tsv``, at the versions ``scripts/fetch_corpus.py`` pins) and
counts, per rule and confidence, the labelled true findings reported and the labelled false alarms
still reported (the commented ``# ... clean:CODE`` lines). True labels no longer reported are
counted as lost. The issue's target is >= 90 % at high confidence; medium is reported apart.
With ``--hot-cold``, a second table splits the same counts by where the finding sits: on a hot
path (per step or per request, as ``h2dlint/analysis/hot_paths.py`` sees it with the package's
project index) or in cold code (``scripts/finding_hotness.py``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import fetch_corpus  # noqa: E402
from precision_sample import Label, load_labels  # noqa: E402


def findings(package: str, paths: list[str]) -> dict[tuple[str, int, str], str]:
    """(path, line, code) -> confidence of every finding on the package's labelled files."""
    tree = Path(fetch_corpus.fetch(package))
    command = [sys.executable, "-m", "h2dlint", "check", "--no-cache", "-j", "1", "--exit-zero"]
    command += ["--select", "ALL", "--output-format", "json", *[str(tree / p) for p in paths]]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"h2dlint failed on {package} ({done.returncode}): {tail}")
    return {
        (Path(d["filename"]).relative_to(tree).as_posix(), d["location"]["row"], d["code"]): d.get(
            "confidence", "high"
        )
        for d in json.loads(done.stdout)
    }


def hotness(package: str, places: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """(path, line) -> "hot" or "cold" for reported findings of a package."""
    if not places:
        return {}
    tree = Path(fetch_corpus.fetch(package))
    script = ROOT / "scripts" / "finding_hotness.py"
    args = [f"{path}:{line}" for path, line in sorted(set(places))]
    done = subprocess.run(
        [sys.executable, str(script), str(tree), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"finding_hotness failed on {package} ({done.returncode}): {tail}")
    return {
        (place.rpartition(":")[0], int(place.rpartition(":")[2])): where
        for place, where in json.loads(done.stdout).items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", help="labelled packages (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="packages checked at once")
    parser.add_argument(
        "--hot-cold", action="store_true", help="also split the counts by hot and cold code"
    )
    args = parser.parse_args(argv)
    by_package: dict[str, list[Label]] = defaultdict(list)
    for label in load_labels().values():  # duplicate rows count once
        if not args.packages or label.package in args.packages:
            by_package[label.package].append(label)

    Scan = tuple[str, dict[tuple[str, int, str], str], dict[tuple[str, int], str]]

    def scan(package: str) -> Scan:
        labels = by_package[package]
        found = findings(package, sorted({label.path for label in labels}))
        where: dict[tuple[str, int], str] = {}
        if args.hot_cold:
            reported = [(label.path, label.line) for label in labels if _key(label) in found]
            where = hotness(package, reported)
        return package, found, where

    counts: Counter[tuple[str, str, str]] = Counter()
    places: Counter[tuple[str, str, str]] = Counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        for package, found, where in pool.map(scan, sorted(by_package)):
            for label in by_package[package]:
                confidence = found.get(_key(label))
                if confidence is None:
                    counts[(label.code, "-", "fixed" if label.clean else "lost")] += 1
                    continue
                verdict = "false" if label.clean else "true"
                counts[(label.code, confidence, verdict)] += 1
                if where:
                    places[(label.code, where[(label.path, label.line)], verdict)] += 1
    print("| rule | high: true / reported | medium: true / reported | all | true lost |")
    print("| --- | --- | --- | --- | --- |")
    for code in sorted({key[0] for key in counts}):
        cells = []
        for confidence in ("high", "medium"):
            true, false = counts[(code, confidence, "true")], counts[(code, confidence, "false")]
            cells.append(_ratio(true, true + false))
        true = counts[(code, "high", "true")] + counts[(code, "medium", "true")]
        false = counts[(code, "high", "false")] + counts[(code, "medium", "false")]
        cells.append(_ratio(true, true + false))
        print(f"| {code} | {' | '.join(cells)} | {counts[(code, '-', 'lost')]} |")
    if args.hot_cold:
        print()
        print("| rule | hot: true / reported | cold: true / reported |")
        print("| --- | --- | --- |")
        for code in sorted({key[0] for key in places}):
            cells = [
                _ratio(
                    places[(code, where, "true")],
                    places[(code, where, "true")] + places[(code, where, "false")],
                )
                for where in ("hot", "cold")
            ]
            print(f"| {code} | {' | '.join(cells)} |")
    return 0


def _key(label: Label) -> tuple[str, int, str]:
    return (label.path, label.line, label.code)


def _ratio(true: int, reported: int) -> str:
    return f"{true}/{reported} ({100 * true / reported:.1f} %)" if reported else "-"


if __name__ == "__main__":
    raise SystemExit(main())

"""Score h2dlint's recall on real upstream fixes (``tests/data/upstream_fixes.tsv``).

Each labelled row names a package version from PyPI, a file inside it, a line and a family:
``positive`` rows are pre-fix lines that upstream later fixed (a copy or a sync), ``lookalike``
rows are correct code (often the post-fix line) that must not be flagged. For every labelled
(package, version) the whole package is fetched into the corpus cache if missing
(``scripts/fetch_corpus.py``) and checked in one run, as installed (the package's top-level
folder), so facts that cross modules count:

    h2dlint check --no-cache --output-format json --select ALL <top-level folders>

A positive is found when a finding starts inside the labelled statement (the statement that
holds the line, or a compound statement's header) or covers the line from an enclosing
statement (shown with a trailing ``~``: before session 42 HTD201 reported the loop, not the
read inside it); for a label on a loop's header, a finding of the family's own rule inside
the loop's body counts too (``>``: the read that waits, where the fix walks the rows on the
host, session 44); any HTD code counts and the codes are reported. Per family the table gives
positives found, recall and look-alikes flagged, then every miss with its snippet:

    python scripts/score_recall.py                 # table and misses
    python scripts/score_recall.py --json          # machine output
    python scripts/score_recall.py --package diffusers
    python scripts/score_recall.py --package transformers --scope folders -j 1

``--scope`` picks what is checked: ``top`` (default) the top-level folders, ``folders`` only the
folders holding the labelled files (a labelled file directly in the top folder is checked alone),
``files`` only the labelled files. The narrower scopes see fewer cross-module facts (a callee's
hot caller in another folder, a helper that returns a device tensor) and can miss what ``top``
finds; they make huge packages (transformers, NeMo) scoreable on a busy host.

A package that cannot be fetched or checked, or a labelled file that is missing or does not
parse, is reported as such and the run goes on. vllm, vllm-omni and sglang are refused.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fetch_corpus import RESERVED, fetch

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TSV = REPO / "tests" / "data" / "upstream_fixes.tsv"
COLUMNS = ["package", "version", "path", "line", "family", "label", "snippet", "note"]
FAMILIES = {
    "per-item-transfer": "HTD101",
    "pageable-non-blocking": "HTD102",
    "strided-copy": "HTD103",
    "concat-then-copy": "HTD104",
    "blocking-from-pinned": "HTD105",
    "tensor-from-host-data": "HTD106",
    "per-row-sync": "HTD201",
    "hot-path-sync": "HTD202",
    "implicit-sync": "-",
    "needless-copy": "HTD301/HTD302/HTD303",
}
LABELS = frozenset({"positive", "lookalike"})


@dataclass(frozen=True)
class Label:
    package: str
    version: str
    path: str
    line: int
    family: str
    label: str
    snippet: str
    note: str


@dataclass
class Outcome:
    label: Label
    flagged: bool = False
    codes: list[str] = field(default_factory=list)
    error: str | None = None


def read_labels(tsv: Path) -> list[Label]:
    with tsv.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        if reader.fieldnames != COLUMNS:
            raise ValueError(f"{tsv}: columns {reader.fieldnames}, expected {COLUMNS}")
        labels: list[Label] = []
        for row in reader:
            label = Label(
                package=row["package"],
                version=row["version"],
                path=row["path"],
                line=int(row["line"]),
                family=row["family"],
                label=row["label"],
                snippet=row["snippet"],
                note=row["note"],
            )
            if label.package.lower() in RESERVED:
                raise ValueError(f"{label.package} is reserved for independent evaluation")
            labels.append(label)
    return labels


def top_folder(path: str) -> str:
    """The installed top-level folder holding ``path``: its first component, or the first two
    for an sdist whose files sit under ``name-version/``."""
    parts = path.split("/")
    if len(parts) > 2 and "-" in parts[0] and any(ch.isdigit() for ch in parts[0]):
        return "/".join(parts[:2])
    return parts[0] if len(parts) > 1 else path


SCOPES = ("top", "folders", "files")


def scope_paths(paths: Sequence[str], scope: str = "top") -> list[str]:
    """What to check for labelled files ``paths``: their top-level folders (``top``), the
    folders holding them (``folders``; a file directly in its top folder alone), or the files."""
    if scope == "files":
        return sorted(set(paths))
    if scope == "folders":
        picked = set()
        for path in paths:
            parent = path.rsplit("/", 1)[0] if "/" in path else path
            picked.add(path if parent == top_folder(path) else parent)
        return sorted(picked)
    return sorted({top_folder(path) for path in paths})


def statement_span(source: str, line: int) -> tuple[int, int]:
    """Rows of the innermost statement holding ``line`` (a compound statement's header only)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return line, line
    best = (line, line)
    best_size: int | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        start, end = node.lineno, node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = max(start, body[0].lineno - 1)  # the header of a compound statement
        if start <= line <= end and (best_size is None or end - start < best_size):
            best, best_size = (start, end), end - start
    return best


def loop_body_span(source: str, line: int) -> tuple[int, int] | None:
    """Rows of the body of the ``for``/``while`` loop whose header holds ``line`` (the
    innermost statement there), else None."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    span = statement_span(source, line)
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.For, ast.AsyncFor, ast.While))
            and node.lineno == span[0]
            and node.body
        ):
            return node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
    return None


def matching_codes(
    records: Sequence[dict[str, Any]],
    span: tuple[int, int],
    line: int,
    body: tuple[int, int] | None = None,
    family_codes: frozenset[str] = frozenset(),
) -> set[str]:
    """Codes of the findings that start in ``span`` (the labelled statement), and, marked
    ``~``, of those reported on an enclosing statement that covers ``line``. With ``body``
    (the labelled statement is a loop's header), also, marked ``>``, the findings of the
    family's own rules (``family_codes``) inside the loop's body: a per-row read is reported
    where it waits (session 42), while upstream's fix may change the header that walks the
    rows (surya 0.14.7's ``for i, seq_len in enumerate(seq_lengths):`` became
    ``...enumerate(seq_lengths.tolist())``)."""
    codes: set[str] = set()
    for record in records:
        row = record["location"]["row"]
        end_row = record.get("end_location", {}).get("row", row)
        if span[0] <= row <= span[1]:
            codes.add(str(record["code"]))
        elif row <= line <= end_row:
            codes.add(f"{record['code']}~")
        elif body is not None and body[0] <= row <= body[1] and record["code"] in family_codes:
            codes.add(f"{record['code']}>")
    return codes


def h2dlint_command() -> list[str]:
    return [sys.executable, "-m", "h2dlint"]


def checkout_environment() -> dict[str, str]:
    """The environment for a scored run: this checkout's ``h2dlint`` first on the path.

    The run's working folder is the package being scored, so ``python -m h2dlint`` would
    otherwise import whichever h2dlint is installed (the main checkout's editable install),
    not the code of the worktree this script belongs to.
    """
    checkout = str(REPO)
    inherited = os.environ.get("PYTHONPATH")
    path = checkout if not inherited else os.pathsep.join([checkout, inherited])
    return {**os.environ, "PYTHONPATH": path}


def run_h2dlint(root: Path, folders: Sequence[str], timeout: float) -> list[dict[str, Any]]:
    cmd = [
        *h2dlint_command(),
        "check",
        "--no-cache",
        "--output-format",
        "json",
        "--select",
        "ALL",
        "--exit-zero",
        *folders,
    ]
    proc = subprocess.run(
        cmd,
        cwd=root,
        env=checkout_environment(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    try:
        records = json.loads(proc.stdout or "null")
    except json.JSONDecodeError as exc:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"h2dlint exit {proc.returncode}, bad JSON ({exc}): {tail}") from None
    if not isinstance(records, list):
        tail = proc.stderr.strip().splitlines()[-3:]
        raise RuntimeError(f"h2dlint exit {proc.returncode}, no findings list: {tail}")
    for record in records:  # a rule that raised was skipped for the file: recall it may lose
        if isinstance(record, dict) and record.get("code") == "E900":
            print(f"warning: {record.get('filename')}: {record.get('message')}", file=sys.stderr)
    return records


def score_group(
    labels: list[Label], timeout: float, raw_dir: Path | None = None, scope: str = "top"
) -> list[Outcome]:
    """Check one (package, version) and judge each of its labelled lines.

    With ``raw_dir``, h2dlint's findings for the package are kept there and reused on the next
    run (clear it whenever h2dlint changes): re-scoring after a label edit is then instant."""
    package, version = labels[0].package, labels[0].version
    outcomes = [Outcome(label) for label in labels]
    try:
        root = fetch(package, version)
        folders = scope_paths([label.path for label in labels], scope)
        suffix = "" if scope == "top" else f".{scope}"
        raw = raw_dir / f"{package}-{version}{suffix}.json" if raw_dir else None
        if raw is not None and raw.exists():
            records = json.loads(raw.read_text(encoding="utf-8"))
        else:
            records = run_h2dlint(root, folders, timeout)
            if raw is not None:
                raw.parent.mkdir(parents=True, exist_ok=True)
                raw.write_text(json.dumps(records), encoding="utf-8")
    except Exception as exc:  # one package failing must not stop the others
        for outcome in outcomes:
            outcome.error = f"{type(exc).__name__}: {exc}"
        return outcomes
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        try:
            by_file[os.path.realpath(record["filename"])].append(record)
        except (KeyError, TypeError):
            continue
    for outcome in outcomes:
        label = outcome.label
        file = root / label.path
        try:
            source = file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            outcome.error = f"file missing: {exc}"
            continue
        span = statement_span(source, label.line)
        body = loop_body_span(source, label.line)
        family_codes = frozenset(FAMILIES.get(label.family, "").split("/"))
        found = by_file.get(os.path.realpath(file), [])
        codes = matching_codes(found, span, label.line, body, family_codes)
        outcome.flagged = bool(codes)
        outcome.codes = sorted(codes)
    return outcomes


def _python_bytes(labels: list[Label]) -> int:
    """The bytes of Python that checking the group reads (its package's top folders); 0 when
    the package is not at hand."""
    try:
        root = fetch(labels[0].package, labels[0].version)
    except Exception:
        return 0
    folders = {top_folder(label.path) for label in labels}
    return sum(file.stat().st_size for folder in folders for file in (root / folder).rglob("*.py"))


def summarise(outcomes: list[Outcome]) -> dict[str, Any]:
    families: dict[str, dict[str, Any]] = {}
    for family in [*FAMILIES, *sorted({o.label.family for o in outcomes} - FAMILIES.keys())]:
        mine = [o for o in outcomes if o.label.family == family]
        if not mine:
            continue
        pos = [o for o in mine if o.label.label == "positive" and o.error is None]
        look = [o for o in mine if o.label.label == "lookalike" and o.error is None]
        found = [o for o in pos if o.flagged]
        codes: dict[str, int] = defaultdict(int)
        for o in found:
            for code in o.codes:
                codes[code] += 1
        families[family] = {
            "rule": FAMILIES.get(family, "?"),
            "positives": len(pos),
            "found": len(found),
            "recall": round(100.0 * len(found) / len(pos), 1) if pos else None,
            "codes": dict(sorted(codes.items())),
            "lookalikes": len(look),
            "lookalikes_flagged": sum(o.flagged for o in look),
        }
    pos = [o for o in outcomes if o.label.label == "positive" and o.error is None]
    look = [o for o in outcomes if o.label.label == "lookalike" and o.error is None]
    return {
        "families": families,
        "total": {
            "positives": len(pos),
            "found": sum(o.flagged for o in pos),
            "recall": round(100.0 * sum(o.flagged for o in pos) / len(pos), 1) if pos else None,
            "lookalikes": len(look),
            "lookalikes_flagged": sum(o.flagged for o in look),
        },
        "misses": [_row(o) for o in outcomes if o.label.label == "positive" and not o.flagged],
        "false_positives": [
            _row(o) for o in outcomes if o.label.label == "lookalike" and o.flagged
        ],
        "errors": [_row(o) for o in outcomes if o.error is not None],
        "outcomes": [_row(o) for o in outcomes],
    }


def _row(outcome: Outcome) -> dict[str, Any]:
    return {
        **asdict(outcome.label),
        "flagged": outcome.flagged,
        "codes": outcome.codes,
        "error": outcome.error,
    }


def render_table(summary: dict[str, Any]) -> str:
    lines = [
        f"{'family':<22} {'rule':<16} {'found':>9} {'recall':>7}  "
        f"{'lookalikes flagged':>18}  codes",
    ]
    rows = [*summary["families"].items(), ("TOTAL", {**summary["total"], "rule": "", "codes": {}})]
    for family, fam in rows:
        recall = "-" if fam["recall"] is None else f"{fam['recall']:.0f}%"
        codes = ", ".join(f"{c} x{n}" for c, n in fam["codes"].items())
        lines.append(
            f"{family:<22} {fam['rule']:<16} {fam['found']:>4}/{fam['positives']:<4} {recall:>7}"
            f"  {fam['lookalikes_flagged']:>9}/{fam['lookalikes']:<8}  {codes}"
        )
    if summary["misses"]:
        lines.append("\nMisses:")
        for miss in sorted(summary["misses"], key=lambda m: (m["family"], m["package"])):
            where = f"{miss['package']}=={miss['version']} {miss['path']}:{miss['line']}"
            err = f"  [ERROR {miss['error']}]" if miss["error"] else ""
            lines.append(f"  {miss['family']:<22} {where}\n      {miss['snippet']}{err}")
    if summary["false_positives"]:
        lines.append("\nLook-alikes flagged:")
        for fp in summary["false_positives"]:
            where = f"{fp['package']}=={fp['version']} {fp['path']}:{fp['line']}"
            lines.append(f"  {fp['family']:<22} {where} {fp['codes']}\n      {fp['snippet']}")
    if summary["errors"]:
        lines.append("\nErrors:")
        for err in summary["errors"]:
            lines.append(f"  {err['package']}=={err['version']} {err['path']}: {err['error']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsv", type=Path, default=DEFAULT_TSV, help="labelled set")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--save", type=Path, help="also write the JSON summary to this file")
    parser.add_argument("--package", action="append", help="only these packages")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="packages checked at once")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per package")
    parser.add_argument(
        "--raw-dir",
        type=Path,
        help="keep and reuse h2dlint's findings per package here (clear it when h2dlint changes)",
    )
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        default="top",
        help="check the top folders (default), the labelled files' folders, or the files only",
    )
    args = parser.parse_args(argv)
    labels = [
        label
        for label in read_labels(args.tsv)
        if not args.package or label.package in args.package
    ]
    groups: dict[tuple[str, str], list[Label]] = defaultdict(list)
    for label in labels:
        groups[(label.package, label.version)].append(label)
    # The largest packages first: the run ends when its slowest check does (two transformers
    # versions with one label each, started last, kept a 16-core run going alone).
    order = sorted(groups.values(), key=lambda g: (_python_bytes(g), len(g)), reverse=True)
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:

        def run(group: list[Label]) -> list[Outcome]:
            return score_group(group, args.timeout, args.raw_dir, args.scope)

        for group in pool.map(run, order):
            outcomes.extend(group)
            first = group[0].label
            print(f"checked {first.package}=={first.version}", file=sys.stderr)
    summary = summarise(outcomes)
    if args.save:
        args.save.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(render_table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

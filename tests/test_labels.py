"""The labelled regression set: real lines of public packages, triaged by hand, each either a
finding a rule must report or a line it must leave alone.

Labels live in ``tests/data/labels/<CODE>.tsv``, one per line, tab-separated:
``package  path  line  expect  note`` where ``expect`` is a rule code (must be reported on that
line) or ``clean:CODE`` (must not be). A false alarm that is still reported is kept as a comment,
``# package  path  line  clean:CODE  note``: the test checks that it is still reported, so that
the day a change fixes it the comment must become a clean label. The packages are fetched from
PyPI at the versions that ``scripts/fetch_corpus.py`` pins; nothing of them is committed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus import corpus_package

from h2dlint.cli import main

LABELS = Path(__file__).parent / "data" / "labels"


@dataclass(frozen=True)
class Label:
    source: str
    package: str
    path: str
    line: int
    code: str
    clean: bool
    note: str
    known_false: bool = False  # a commented ``clean:`` label: a false alarm still reported


def load_labels() -> list[Label]:
    labels = []
    for file in sorted(LABELS.glob("*.tsv")):
        for number, raw in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            known_false = _known_false(raw)
            if not known_false and (not raw.strip() or raw.startswith("#")):
                continue
            fields = (raw[2:] if known_false else raw).split("\t")
            if len(fields) < 4:
                raise ValueError(f"{file.name}:{number}: expected 4 or 5 tab-separated fields")
            package, path, line, expect = fields[:4]
            clean = expect.startswith("clean:")
            code = expect.removeprefix("clean:")
            labels.append(
                Label(
                    f"{file.name}:{number}",
                    package,
                    path,
                    int(line),
                    code,
                    clean,
                    fields[4] if len(fields) > 4 else "",
                    known_false,
                )
            )
    return labels


def _known_false(raw: str) -> bool:
    """Whether a line is a commented ``clean:`` label (a false alarm still reported)."""
    fields = raw[2:].split("\t") if raw.startswith("# ") else []
    return len(fields) >= 4 and fields[2].isdigit() and fields[3].startswith("clean:")


def _by_package() -> dict[str, list[Label]]:
    grouped: dict[str, list[Label]] = defaultdict(list)
    for label in load_labels():
        grouped[label.package].append(label)
    return grouped


@pytest.mark.parametrize("package", sorted(_by_package()))
def test_labelled_lines(package: str) -> None:
    labels = _by_package()[package]
    tree = corpus_package(package)
    paths = sorted({label.path for label in labels})
    missing = [p for p in paths if not (tree / p).is_file()]
    assert not missing, f"labelled files not in {package}: {missing}"
    result = CliRunner().invoke(
        main,
        [
            "--no-cache",
            "--output-format",
            "json",
            "--exit-zero",
            "--select",
            "ALL",
            *[str(tree / p) for p in paths],
        ],
    )
    assert result.exit_code == 0, result.output
    found = {
        (Path(d["filename"]).relative_to(tree).as_posix(), d["location"]["row"], d["code"])
        for d in json.loads(result.output)
    }
    wrong = []
    for label in labels:
        reported = (label.path, label.line, label.code) in found
        if label.known_false:
            if not reported:
                wrong.append(
                    f"{label.source}: {label.path}:{label.line} {label.code} no longer reported: "
                    "uncomment the label (a fixed false alarm is a clean label)"
                )
            continue
        if reported == label.clean:
            verdict = "flagged but labelled clean" if label.clean else "missed"
            wrong.append(f"{label.source}: {label.path}:{label.line} {label.code} {verdict}")
    assert not wrong, "\n".join(wrong)


def test_each_label_is_written_once() -> None:
    """Two rows for one finding (a re-triage appended instead of edited) would count it twice
    in the precision tables of scripts/label_precision.py."""
    seen: dict[tuple[str, str, int, str, bool], str] = {}
    twice = []
    for label in load_labels():
        key = (label.package, label.path, label.line, label.code, label.clean)
        if key in seen:
            twice.append(f"{label.source} repeats {seen[key]}")
        seen.setdefault(key, label.source)
    assert twice == []

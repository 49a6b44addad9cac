"""The recall set of upstream fixes is well formed: columns, families, labels, no reserved code.

Fast and offline: only the TSV is read, never the packages it names.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
TSV = REPO / "tests" / "data" / "upstream_fixes.tsv"
COLUMNS = ["package", "version", "path", "line", "family", "label", "snippet", "note"]
FAMILIES = {
    "per-item-transfer",
    "pageable-non-blocking",
    "strided-copy",
    "concat-then-copy",
    "blocking-from-pinned",
    "tensor-from-host-data",
    "per-row-sync",
    "hot-path-sync",
    "implicit-sync",
    "needless-copy",
}
RESERVED = re.compile(r"vllm|sglang", re.IGNORECASE)


def _rows() -> list[dict[str, str]]:
    with TSV.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        assert reader.fieldnames == COLUMNS
        return list(reader)


def _score_recall() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "score_recall", REPO / "scripts" / "score_recall.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("score_recall", module)
    spec.loader.exec_module(module)
    return module


def test_columns_and_values() -> None:
    rows = _rows()
    assert rows
    for row in rows:
        where = f"{row['package']} {row['path']}:{row['line']}"
        assert all(row[column] is not None for column in COLUMNS), where
        assert row["family"] in FAMILIES, where
        assert row["label"] in {"positive", "lookalike"}, where
        assert int(row["line"]) >= 1, where
        assert re.fullmatch(r"[0-9][0-9A-Za-z.+-]*", row["version"]), where
        assert row["path"].endswith(".py") and not row["path"].startswith("/"), where
        assert ".." not in row["path"].split("/"), where
        assert row["snippet"].strip() and len(row["snippet"]) <= 120, where
        assert "\n" not in row["snippet"] and "\t" not in row["snippet"], where
        assert row["note"].strip(), where


def test_no_reserved_packages() -> None:
    for row in _rows():
        assert not RESERVED.search(row["package"]), row["package"]
        assert not RESERVED.search(row["path"]), row["path"]


def test_no_duplicate_lines() -> None:
    keys = [(r["package"], r["version"], r["path"], r["line"]) for r in _rows()]
    assert len(keys) == len(set(keys))


def test_positives_outnumber_lookalikes_and_span_families() -> None:
    rows = _rows()
    positives = [r for r in rows if r["label"] == "positive"]
    assert len(positives) > len(rows) - len(positives)
    assert len({r["family"] for r in positives}) >= 4


def test_scorer_agrees_on_families_and_reads_the_set() -> None:
    module = _score_recall()
    assert set(module.FAMILIES) == FAMILIES
    assert module.COLUMNS == COLUMNS
    labels = module.read_labels(TSV)
    assert len(labels) == len(_rows())


@pytest.mark.parametrize(
    ("source", "line", "span"),
    [
        ("x = 1\ny = f(\n    a.item(),\n)\n", 3, (2, 4)),
        ("for t in g.tolist():\n    h(t)\n    k(t)\n", 1, (1, 1)),
        ("for t in g:\n    v = t.item()\n", 2, (2, 2)),
        ("def f(:\n", 1, (1, 1)),
    ],
)
def test_statement_span(source: str, line: int, span: tuple[int, int]) -> None:
    assert _score_recall().statement_span(source, line) == span


def test_matching_codes() -> None:
    def finding(code: str, row: int, end: int) -> dict[str, object]:
        return {"code": code, "location": {"row": row}, "end_location": {"row": end}}

    records = [
        finding("HTD106", 11, 11),  # inside the labelled statement (10-12)
        finding("HTD201", 5, 30),  # on the loop around it
        finding("HTD102", 40, 40),  # elsewhere
    ]
    assert _score_recall().matching_codes(records, (10, 12), 11) == {"HTD106", "HTD201~"}
    assert _score_recall().matching_codes(records, (35, 36), 35) == set()


def test_top_folder() -> None:
    module = _score_recall()
    assert module.top_folder("transformers/models/x.py") == "transformers"
    assert module.top_folder("deepspeed-0.19.0/deepspeed/runtime/utils.py") == (
        "deepspeed-0.19.0/deepspeed"
    )


def test_reserved_package_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text(
        "\t".join(COLUMNS)
        + "\n"
        + "\t".join(["sglang", "1.0", "a/b.py", "1", "per-row-sync", "positive", "x.item()", "n"])
        + "\n"
    )
    with pytest.raises(ValueError, match="reserved"):
        _score_recall().read_labels(bad)


def test_an_internal_error_of_a_scored_run_is_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A rule that raised was skipped for that file (E900): the score may have lost a row there.
    module = _score_recall()
    error = {"code": "E900", "filename": "pkg/m.py", "message": "internal error in rule HTD301"}
    done = subprocess.CompletedProcess([], 2, stdout=json.dumps([error]), stderr="")
    monkeypatch.setattr(module.subprocess, "run", lambda *a, **k: done)
    assert module.run_h2dlint(tmp_path, ["pkg"], 10.0) == [error]
    assert "pkg/m.py: internal error in rule HTD301" in capsys.readouterr().err


def test_a_scored_run_imports_this_checkouts_h2dlint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The run's working folder is the scored package: without this checkout first on the path,
    # `python -m h2dlint` would score whichever h2dlint is installed, not a worktree's code.
    module = _score_recall()
    seen: dict[str, object] = {}

    def run(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        seen.update(kwargs)
        return subprocess.CompletedProcess([], 0, stdout="[]", stderr="")

    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    monkeypatch.setattr(module.subprocess, "run", run)
    assert module.run_h2dlint(tmp_path, ["pkg"], 10.0) == []
    env = seen["env"]
    assert isinstance(env, dict)
    checkout = Path(module.__file__).resolve().parents[1]
    assert env["PYTHONPATH"].split(os.pathsep) == [str(checkout), "/elsewhere"]
    assert (checkout / "h2dlint" / "__init__.py").is_file()

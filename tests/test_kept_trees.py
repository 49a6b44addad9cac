"""CPython's trees kept by the summary store by a budget of source bytes, and the run's check of a
file taking the store's tree of its bytes instead of parsing them again
(``project/kept_trees.py``): the same tree, hence the same findings."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from h2dlint.digest import content_digest
from h2dlint.parsing import cpython_parse
from h2dlint.project import kept_trees
from h2dlint.project.index import ProjectIndex
from h2dlint.project.kept_trees import KeptTrees
from h2dlint.project.layout import build_layout
from h2dlint.source import decode

ROOT = Path(__file__).resolve().parent.parent
PROJECTS = sorted(p for p in (ROOT / "tests" / "projects").iterdir() if p.is_dir())


def _tree(text: str) -> ast.Module:
    return ast.parse(text)


def test_trees_are_kept_within_the_budget_newest_last() -> None:
    kept = KeptTrees(budget=100)
    a, b, c = _tree("a = 1"), _tree("b = 2"), _tree("c = 3")
    kept.keep("a", a, 40)
    kept.keep("b", b, 40)
    assert kept.get("a") is a  # now the most recently used
    kept.keep("c", c, 40)  # 120 > 100: the least recently used (b) goes
    assert "b" not in kept and kept.get("a") is a and kept.get("c") is c
    kept.keep("big", _tree("d = 4"), 1000)  # the newest stays whatever its size
    assert len(kept) == 1 and "big" in kept
    kept.keep("bad", None, 10)  # bytes CPython refused: kept as refused
    assert "bad" in kept and kept.get("bad") is None


def test_a_tree_kept_again_is_counted_once() -> None:
    kept = KeptTrees(budget=100)
    kept.keep("a", _tree("a = 1"), 60)
    kept.keep("a", _tree("a = 1"), 60)
    kept.keep("b", _tree("b = 1"), 40)
    assert "a" in kept and "b" in kept


def test_the_budget_is_read_when_the_store_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_trees, "KEPT_TREE_BYTES", 7)
    assert KeptTrees().budget == 7


SOURCES = {
    "plain.py": b"import torch\n\ndef f(x):\n    return x.cuda()\n",
    "crlf.py": b"def f(x):\r\n    s = 'a\\\r\nb'\r\n    return x\r\n",
    "utf8.py": "# coding: utf-8\nname = '\u00e9t\u00e9 \u2014 \U0001f600'\nx = name[1:]\n".encode(),
    "tabs.py": b"if True:\n\tx = 1  # tab\n\ty = (x,\n\t     2)\n",
    "fstrings.py": b"x = 1\ny = f'{x!r:>{x}} {x=}'\n",
}


def _index(tmp_path: Path, files: dict[str, bytes]) -> tuple[ProjectIndex, dict[str, Path]]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_bytes(b"")
    paths = {}
    for name, data in files.items():
        paths[name] = package / name
        paths[name].write_bytes(data)
    return ProjectIndex(build_layout([str(p) for p in paths.values()])), paths


def _sources() -> dict[str, bytes]:
    """The texts above and every module of h2dlint's project index and pipeline."""
    found = dict(SOURCES)
    for path in [*(ROOT / "h2dlint" / "project").glob("*.py"), ROOT / "h2dlint" / "pipeline.py"]:
        found[f"own_{path.name}"] = path.read_bytes()
    return found


def test_the_store_s_tree_is_the_tree_the_run_would_parse(tmp_path: Path) -> None:
    index, paths = _index(tmp_path, _sources())
    for name, path in paths.items():
        data = path.read_bytes()
        text = decode(data).text
        assert index.summaries.kept_trees.held(data, text) is None  # none kept yet
        made = index.summaries.tree(content_digest(data), data)
        held = index.summaries.kept_trees.held(data, text)
        assert held is made is not None, name
        parsed = cpython_parse(text, str(path)).tree
        assert parsed is not None
        dump = ast.dump(parsed, include_attributes=True)
        assert ast.dump(held, include_attributes=True) == dump, name


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbfx = 1\n",  # a BOM: the run decodes the text without it
        b"# -*- coding: latin-1 -*-\nname = '\xe9'\n",  # another encoding
    ],
)
def test_bytes_that_are_not_their_text_s_utf8_are_parsed_by_the_run(
    tmp_path: Path, data: bytes
) -> None:
    index, _ = _index(tmp_path, {"m.py": data})
    text = decode(data).text
    assert index.summaries.tree(content_digest(data), data) is not None
    assert index.summaries.kept_trees.held(data, text) is None


def test_bytes_cpython_refuses_are_parsed_by_the_run(tmp_path: Path) -> None:
    data = b"def f(:\n"
    index, _ = _index(tmp_path, {"m.py": data})
    assert index.summaries.tree(content_digest(data), data) is None
    assert index.summaries.kept_trees.held(data, data.decode()) is None


def _records(project: Path) -> list[dict[str, object]]:
    from click.testing import CliRunner

    from h2dlint.cli import main

    args = ["-j1", "--no-cache", "--select", "ALL", "--output-format", "json", "--exit-zero"]
    result = CliRunner().invoke(main, [*args, str(project)], catch_exceptions=False)
    records: list[dict[str, object]] = json.loads(result.stdout)
    return records


@pytest.mark.parametrize("project", PROJECTS, ids=[p.name for p in PROJECTS])
def test_the_same_findings_with_the_store_s_trees_handed_over(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed: list[bool] = []
    held = KeptTrees.held

    def counted(self: KeptTrees, data: bytes, text: str) -> ast.Module | None:
        found = held(self, data, text)
        handed.append(found is not None)
        return found

    monkeypatch.setattr(KeptTrees, "held", counted)
    with_trees = _records(project)
    monkeypatch.setattr(KeptTrees, "held", lambda self, data, text: None)
    assert _records(project) == with_trees
    assert any(handed)  # some files' trees came from the store (summarised before checked)

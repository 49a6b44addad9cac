"""The project index keeps the trees the run parsed for later questions about their modules,
within the memory its kept modules leave (``ProjectIndex.offer_tree``)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from h2dlint.project import index as index_module
from h2dlint.project.index import ProjectIndex
from h2dlint.project.layout import build_layout


def _package(tmp_path: Path) -> tuple[Path, Path]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    helper = package / "helper.py"
    helper.write_text("import torch\n\ndef rows(n):\n    return torch.zeros(n, pin_memory=True)\n")
    user = package / "user.py"
    user.write_text("from .helper import rows\n\ndef step(n):\n    return rows(n).cuda()\n")
    return helper, user


def _offer(index: ProjectIndex, path: Path) -> cst.Module:
    data = path.read_bytes()
    tree = cst.parse_module(data.decode())
    index.offer_tree(str(path), data, data.decode(), tree)
    return tree


def test_an_offered_tree_answers_the_next_question_about_its_module(tmp_path: Path) -> None:
    helper, user = _package(tmp_path)
    index = ProjectIndex(build_layout([str(helper), str(user)]))
    tree = _offer(index, helper)
    parsed = index.parsed("pkg.helper")
    assert parsed is not None and parsed.tree is tree  # not parsed again
    assert index.consulted == {str(helper.resolve()): parsed.digest}
    assert list(index._parsed) == ["pkg.helper"] and not index._offers


def test_an_offered_tree_must_be_the_one_the_index_would_parse(tmp_path: Path) -> None:
    helper, user = _package(tmp_path)
    index = ProjectIndex(build_layout([str(helper), str(user)]))
    data = helper.read_bytes()
    text = data.decode()
    index.offer_tree(str(helper), b"\xef\xbb\xbf" + data, text, cst.parse_module(text))  # BOM
    index.offer_tree(str(tmp_path / "elsewhere.py"), data, text, cst.parse_module(text))
    assert not index._offers


@pytest.mark.parametrize("room", [0, 10_000])
def test_offered_trees_take_only_what_the_kept_modules_leave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, room: int
) -> None:
    helper, user = _package(tmp_path)
    index = ProjectIndex(build_layout([str(helper), str(user)]))
    parsed = index.parsed("pkg.user")
    assert parsed is not None
    monkeypatch.setattr(index_module, "KEPT_CHARS", len(parsed.source) + room)
    _offer(index, helper)
    assert bool(index._offers) == (room > 0)
    monkeypatch.setattr(index_module, "KEPT_CHARS", len(parsed.source))
    index.parsed("pkg")  # a kept module more: the offers make room
    assert not index._offers


def test_cpython_s_tree_of_a_checked_file_serves_its_summary_parts(tmp_path: Path) -> None:
    import ast

    helper, user = _package(tmp_path)
    index = ProjectIndex(build_layout([str(helper), str(user)]))
    data = helper.read_bytes()
    python_tree = ast.parse(data)
    index.offer_tree(str(helper), data, data.decode(), cst.parse_module(data), python_tree)
    digest = index.digest(str(helper.resolve()), data)
    assert index.summaries.tree(digest, data) is python_tree  # not parsed again


def test_offered_trees_stay_within_their_own_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helper, user = _package(tmp_path)
    index = ProjectIndex(build_layout([str(helper), str(user)]))
    monkeypatch.setattr(index_module, "OFFERED_CHARS", len(helper.read_text()))
    _offer(index, helper)
    assert list(index._offers) == ["pkg.helper"]
    _offer(index, user)  # the older offer makes room for the newer one
    assert list(index._offers) == ["pkg.user"]

"""``project.ast_walk`` visits what CPython's ``ast.walk`` and ``ast.iter_child_nodes`` visit,
in the same order (the summaries' call edges keep the order of first calls)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from h2dlint.project.ast_walk import child_nodes, walk

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "h2dlint").rglob("*.py"))[::4] + sorted(ROOT.glob("fixtures/*/*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_walk_is_ast_walk(path: Path) -> None:
    tree = ast.parse(path.read_bytes())
    assert list(walk(tree)) == list(ast.walk(tree))
    for node in ast.walk(tree):
        assert child_nodes(node) == list(ast.iter_child_nodes(node))

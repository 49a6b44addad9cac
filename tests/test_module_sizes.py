"""Small modules with one job each: no module of h2dlint over 500 lines, and no rule module over
500 lines of its own logic. A rule keeps its documentation (the class docstring, from which
docs/rules/ is generated) and its valid and invalid examples beside its logic, in one file, as
Fixit's rules do; those are documentation and test data, so they do not count against the rule
(docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 500
EXAMPLE_FIELDS = frozenset({"valid", "invalid"})


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def logic_lines(path: Path) -> int:
    """The module's lines less its rule classes' docstrings and ``valid``/``invalid`` examples."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documentation = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for index, statement in enumerate(node.body):
            docstring = (
                index == 0
                and isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            )
            examples = isinstance(statement, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(target, ast.Name) and target.id in EXAMPLE_FIELDS
                for target in (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
            )
            if docstring or examples:
                assert statement.end_lineno is not None
                documentation += statement.end_lineno - statement.lineno + 1
    return lines(path) - documentation


@pytest.mark.parametrize(
    "path", sorted(ROOT.joinpath("h2dlint").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_module_over_the_limit(path: Path) -> None:
    assert lines(path) <= LIMIT, f"{path.relative_to(ROOT)}: {lines(path)} lines"


@pytest.mark.parametrize(
    "path", sorted(ROOT.joinpath("rules").glob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_rule_logic_over_the_limit(path: Path) -> None:
    assert logic_lines(path) <= LIMIT, f"{path.relative_to(ROOT)}: {logic_lines(path)} lines"


def test_examples_and_docstrings_do_not_count() -> None:
    rule = ROOT / "rules" / "htd202_sync_on_hot_path.py"
    assert logic_lines(rule) < lines(rule) - 400

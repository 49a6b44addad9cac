"""Where a file's top-level statements, and the statements of its top-level classes, start, from
CPython's line numbers: so that the positions of a few reported nodes come from generating the
code of the statements that hold them (a method, not its whole class), not of the whole module
up to the last of them.

libcst's tree has no positions; :class:`h2dlint.context.Positions` finds them by generating
code and counting characters. For a finding deep in a large module that pass generated every
statement before it (a tenth of a second on a 5,000-line model file, for each file with a
finding). CPython's ``ast`` of the same text, which the run has already made, says on which line
each statement's code begins; libcst's statement starts its own lines earlier, with the
comment and blank lines it owns (``leading_lines``). The generated code of a statement is
compared with the source at that place, and any mismatch (a form feed libcst drops, a file
without a final newline) sends the caller back to the whole-module pass.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

import libcst as cst


def statement_lines(module: cst.Module, tree: ast.Module) -> dict[cst.CSTNode, int] | None:
    """Each top-level statement of ``module``, and each statement in the body of a top-level
    class, -> the 1-based line its code starts on (its own comment and blank lines included),
    by ``tree``, CPython's parse of the same text; None when the two trees do not line up
    statement by statement."""
    lines: dict[cst.CSTNode, int] = {}
    return lines if _line_up(module.body, tree.body, lines, classes=True) else None


def member_of_class(ancestors: Sequence[cst.CSTNode]) -> cst.CSTNode | None:
    """The statement that :func:`statement_lines` places and that holds the innermost of
    ``ancestors`` (the module first): a statement of a top-level class's body, else the
    top-level statement; None at module level."""
    if len(ancestors) < 2:
        return None
    top = ancestors[1]
    if (
        isinstance(top, cst.ClassDef)
        and len(ancestors) > 3
        and isinstance(ancestors[2], cst.IndentedBlock)
    ):
        return ancestors[3]
    return top


def _line_up(
    statements: Sequence[cst.BaseStatement],
    body: list[ast.stmt],
    lines: dict[cst.CSTNode, int],
    *,
    classes: bool,
) -> bool:
    j = 0
    for statement in statements:
        if j >= len(body):
            return False
        node = body[j]
        first = node.lineno
        owned = len(getattr(statement, "leading_lines", ()))  # every statement has them
        if isinstance(statement, cst.SimpleStatementLine):
            j += len(statement.body)  # ``a = 1; b = 2`` is one line, two CPython statements
        else:
            j += 1
            decorators = getattr(statement, "decorators", ())
            if decorators:
                first = min([first, *(d.lineno for d in getattr(node, "decorator_list", ()))])
                owned += len(decorators[0].leading_lines)
        lines[statement] = first - owned
        if (
            classes
            and isinstance(statement, cst.ClassDef)
            and isinstance(node, ast.ClassDef)
            and isinstance(statement.body, cst.IndentedBlock)
            and not _line_up(statement.body.body, node.body, lines, classes=False)
        ):
            return False
    return j == len(body)

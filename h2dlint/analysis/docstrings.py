"""Whether a statement is a docstring: a lone string expression (concatenated ones too)."""

from __future__ import annotations

import libcst as cst


def is_docstring(statement: cst.BaseStatement) -> bool:
    """Whether ``statement`` is a line holding only a string (``"a" "b"`` too)."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )

"""Where a file's top-level statements start, from CPython's line numbers: so that the positions
of a few reported nodes come from generating the code of the statements that hold them, not of
the whole module up to the last of them.

libcst's tree has no positions; :class:`h2dlint.context.Positions` finds them by generating
code and counting characters. For a finding deep in a large module that pass generated every
statement before it (a tenth of a second on a 5,000-line model file, for each file with a
finding). CPython's ``ast`` of the same text, which the run has already made, says on which line
each top-level statement's code begins; libcst's statement starts its own lines earlier, with
the comment and blank lines it owns (``leading_lines``). The generated code of a statement is
compared with the source at that place, and any mismatch (a form feed libcst drops, a file
without a final newline) sends the caller back to the whole-module pass.
"""

from __future__ import annotations

import ast

import libcst as cst


def statement_lines(module: cst.Module, tree: ast.Module) -> dict[cst.CSTNode, int] | None:
    """Each top-level statement of ``module`` -> the 1-based line its code starts on (its own
    comment and blank lines included), by ``tree``, CPython's parse of the same text; None when
    the two trees do not line up statement by statement."""
    body = tree.body
    lines: dict[cst.CSTNode, int] = {}
    j = 0
    for statement in module.body:
        if j >= len(body):
            return None
        node = body[j]
        first = node.lineno
        owned = len(statement.leading_lines)
        if isinstance(statement, cst.SimpleStatementLine):
            j += len(statement.body)  # ``a = 1; b = 2`` is one line, two CPython statements
        else:
            j += 1
            decorators = getattr(statement, "decorators", ())
            if decorators:
                first = min([first, *(d.lineno for d in getattr(node, "decorator_list", ()))])
                owned += len(decorators[0].leading_lines)
        lines[statement] = first - owned
    return lines if j == len(body) else None

"""Checking a very large file statement by statement.

libcst's parser is superlinear in the size of a module (measured here: 0.8 MB of small functions
parse in 5 s, a 10 MB generated table takes about 380 s and 6.5 GB), and real source files stay
far below a megabyte (the largest of the 7,779 corpus files is 327 KB). A file over
:data:`LARGE_FILE_CHARS` is therefore reduced before libcst sees it: every top-level statement
whose text holds no rule marker, and which is a plain assignment, expression, function or class,
is replaced by a one-line stub that binds the same names to an unknown value, padded with a
string literal to the statement's exact number of lines. Every kept statement stays on the same
rows and columns, so findings need no translation, and a stub can only make the analysis know
less (an unknown value), never more.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence

from h2dlint.candidates import stored_names

LARGE_FILE_CHARS = 1024 * 1024
# What is left after the reduction is parsed whole; beyond this the file is not checked (2.4 MB of
# small functions that all hold a marker took 50 s and 2 GB).
MAX_KEPT_CHARS = 2 * 1024 * 1024
STUB_CALL = "_h2dlint_elided"

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def is_large(text: str) -> bool:
    return len(text) > LARGE_FILE_CHARS


def _bound_names(targets: Iterable[ast.expr]) -> list[str]:
    return [name for target in targets for name in sorted(stored_names(target))]


def _padding(rows: int) -> str:
    """A string literal spanning ``rows`` lines."""
    return '"""' + "\n" * (rows - 1) + '"""'


ELIDABLE = (
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.Expr,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)


def _names_of(statement: ast.stmt) -> list[str]:
    """The module-level names ``statement`` binds."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, ast.Assign):
        return _bound_names(statement.targets)
    if isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        return _bound_names([statement.target])
    if isinstance(statement, ast.Expr):
        return []
    names = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.extend((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return names


def _first_row(statement: ast.stmt) -> int:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return min([statement.lineno, *(d.lineno for d in statement.decorator_list)])
    return statement.lineno


def _last_row(statement: ast.stmt) -> int:
    return statement.end_lineno or statement.lineno


def _elidable(statements: list[ast.stmt], lines: list[str], needles: list[str]) -> list[bool]:
    """Which top-level statements no rule could flag: no marker in their text or in the lines
    before them, sharing no line with another statement, of a kind a stub can stand for."""
    result = []
    previous_end = 0
    for index, statement in enumerate(statements):
        first, last = _first_row(statement), _last_row(statement)
        following = statements[index + 1] if index + 1 < len(statements) else None
        alone = previous_end < first and (following is None or _first_row(following) > last)
        segment = "".join(lines[previous_end:last])
        docstring = index == 0 and isinstance(statement, ast.Expr)
        result.append(
            alone
            and not docstring
            and isinstance(statement, ELIDABLE)
            and not any(needle in segment for needle in needles)
        )
        previous_end = max(previous_end, last)
    return result


def reduce_source(text: str, tree: ast.Module, markers: Sequence[bytes]) -> tuple[str, int]:
    """``text`` with every run of top-level statements no rule could flag replaced by one stub.

    The stub binds the names of the run that kept statements also bind (so that a kept binding
    before the run does not seem to reach a use after it) to an unknown value; other names need
    no binding: unbound and unknown read the same to the analysis.
    """
    lines = _LINE.findall(text)
    needles = [marker.decode("utf-8", "replace") for marker in markers]
    statements = tree.body
    elidable = _elidable(statements, lines, needles)
    kept_names = {
        name
        for statement, elide in zip(statements, elidable, strict=True)
        if not elide
        for name in _names_of(statement)
    }
    out = list(lines)
    index = 0
    while index < len(statements):
        if not elidable[index]:
            index += 1
            continue
        end = index
        while end + 1 < len(statements) and elidable[end + 1]:
            end += 1
        first, last = _first_row(statements[index]), _last_row(statements[end])
        names = dict.fromkeys(
            name
            for statement in statements[index : end + 1]
            for name in _names_of(statement)
            if name in kept_names
        )
        ending = lines[last - 1][len(lines[last - 1].rstrip("\r\n")) :]
        stub = (
            "".join(f"{name} = " for name in names) + f"{STUB_CALL}({_padding(last - first + 1)})"
        )
        out[first - 1] = stub + (ending or "\n")
        for row in range(first, last):
            out[row] = ""
        index = end + 1
    reduced = "".join(out)
    elided = sum(len(line) for line, new in zip(lines, out, strict=True) if line != new)
    return reduced, len(text) - elided

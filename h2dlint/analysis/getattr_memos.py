"""A memo kept on another object through ``getattr``: ``cache = getattr(owner, "_w", None)``,
then ``if cache is None: cache = ...; owner._w = cache``.

fairchem's UMA Nitro inference (``models/uma/uma_nitro/_inference.py:13784``) merges its radial
weights once per model this way, and the check it runs while merging
(``_gradblk_bound``: ``float(...abs().sum(dim=1).max())``) runs once, not per call of the
forward that reaches it (session 49, triage49b). :func:`once_guards.alias_memo_guard` asks
:func:`getattr_default_none` for the attribute such a read names (``self._cache`` was the only
read it took before); :func:`getattr_memo_lines` is the ``ast`` side, the lines the project
index's caller walk (:mod:`step_loops`) skips. The body must store the tested name back into
the same attribute of the same name (anywhere in it: fairchem stores it only for frozen
weights); a read of another attribute, a default other than ``None``, or a body that stores
elsewhere is no memo.
"""

from __future__ import annotations

import ast
from itertools import pairwise

import libcst as cst


def getattr_default_none(value: cst.BaseExpression) -> cst.Attribute | None:
    """``owner.attr`` for ``getattr(owner, "attr", None)`` of a name ``owner``; None for any
    other value."""
    if not (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "getattr"
        and len(value.args) == 3
    ):
        return None
    owner, name, default = (arg.value for arg in value.args)
    if not (
        isinstance(owner, cst.Name)
        and isinstance(name, cst.SimpleString)
        and isinstance(default, cst.Name)
        and default.value == "None"
    ):
        return None
    attr = name.evaluated_value
    if not isinstance(attr, str) or not attr.isidentifier():
        return None
    return cst.Attribute(value=cst.Name(owner.value), attr=cst.Name(attr))


def _read(statement: ast.stmt) -> tuple[str, str, str] | None:
    """``(local, owner, attr)`` of ``local = getattr(owner, "attr", None)``."""
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return None
    call = statement.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "getattr"
        and len(call.args) == 3
        and not call.keywords
    ):
        return None
    owner, name, default = call.args
    if not (
        isinstance(owner, ast.Name)
        and isinstance(name, ast.Constant)
        and isinstance(name.value, str)
        and isinstance(default, ast.Constant)
        and default.value is None
    ):
        return None
    return statement.targets[0].id, owner.id, name.value


def _memo_body(node: ast.stmt, local: str, owner: str, attr: str) -> bool:
    """``node`` is ``if local is None:`` whose body stores ``owner.attr = local``."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    test = node.test
    if not (
        isinstance(test.left, ast.Name)
        and test.left.id == local
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return False
    return any(
        isinstance(store, ast.Assign)
        and isinstance(store.value, ast.Name)
        and store.value.id == local
        and any(
            isinstance(t, ast.Attribute)
            and t.attr == attr
            and isinstance(t.value, ast.Name)
            and t.value.id == owner
            for t in store.targets
        )
        for part in node.body
        for store in ast.walk(part)
    )


def getattr_memo_lines(nodes: list[ast.AST]) -> list[list[int]]:
    """The line ranges of the bodies of such memos in the blocks of ``nodes`` (CPython's
    ``ast``: a function and its own nodes): the read must be the statement just before the
    ``if``."""
    lines: list[list[int]] = []
    for node in nodes:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for before, statement in pairwise(block):
                read = _read(before) if isinstance(before, ast.stmt) else None
                if read is not None and _memo_body(statement, *read):
                    assert isinstance(statement, ast.If)
                    first, last = statement.body[0], statement.body[-1]
                    lines.append([first.lineno, last.end_lineno or last.lineno])
    return lines

"""The ``if`` statements (and, when asked, conditional expressions) around a node, within its
own function: what a check of "which arm does this run in" walks, innermost first."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def enclosing_branches(
    path: Sequence[cst.CSTNode], expressions: bool = False
) -> Iterator[tuple[int, cst.If | cst.IfExp, cst.CSTNode]]:
    """Each ``if`` (and ``x if c else y`` when ``expressions``) on ``path`` (outermost first,
    ending at the node) above its end, innermost first and not past the enclosing function,
    lambda or class: its index in ``path``, the branch, and its child on the path (its body,
    its ``else``, its test)."""
    kinds = (cst.If, cst.IfExp) if expressions else (cst.If,)
    for i in range(len(path) - 1, 0, -1):
        parent, child = path[i - 1], path[i]
        if isinstance(parent, _SCOPES):
            return
        if isinstance(parent, kinds):
            yield i - 1, parent, child

"""Whether a node runs once per iteration of a loop of its own function (HTD106, HTD107)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def in_loop_body(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Inside a ``for``/``while`` body of the innermost function (not in a nested function,
    lambda or class, which the loop only defines)."""
    for i in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[i - 1], ancestors[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(parent, (cst.For, cst.While)) and child is parent.body:
            return True
    return False

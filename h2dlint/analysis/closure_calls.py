"""Whether some loops of a function call one of its closures by name (a per-request entry point
whose step loops call a local helper: the helper runs per step; one that converts the outputs
after the loops does not). Split out of ``hot_paths.py``."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.walk import visit_read_only


class _CallsIn(cst.CSTVisitor):
    def __init__(self, name: str, counts: Callable[[cst.For | cst.While], bool]) -> None:
        self.name = name
        self.counts = counts
        self.depth = 0
        self.found = False

    def _weight(self, node: cst.For | cst.While) -> int:
        return 1 if self.counts(node) else 0

    def visit_For(self, node: cst.For) -> None:
        self.depth += self._weight(node)

    def leave_For(self, original_node: cst.For) -> None:
        self.depth -= self._weight(original_node)

    def visit_While(self, node: cst.While) -> None:
        self.depth += self._weight(node)

    def leave_While(self, original_node: cst.While) -> None:
        self.depth -= self._weight(original_node)

    def visit_Call(self, node: cst.Call) -> None:
        if self.depth and isinstance(node.func, cst.Name) and node.func.value == self.name:
            self.found = True


def called_in_loops(
    body: cst.BaseSuite, name: str, counts: Callable[[cst.For | cst.While], bool]
) -> bool:
    """Whether a loop of ``body`` that ``counts`` calls the function ``name``."""
    finder = _CallsIn(name, counts)
    visit_read_only(body, finder)
    return finder.found

"""The reads of a name after its binding in one function, each with its parents: what
``stored_offloads``, ``recorded_offloads`` and ``session_feeds`` ask ("is every later use of
``x = t.cpu()`` a store / a record's argument / a session's feed?").

A read is a ``Name`` of the name after the binding statement has been left, outside nested
functions and lambdas (their own scope), that is neither an attribute's name (``o.x``) nor a
keyword (``f(x=...)``) nor an assignment's target: a target is a rebinding, counted apart
(:attr:`LaterReads.rebound_after`), since what a caller does with reads of another value is
its own choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import libcst as cst

from h2dlint.walk import visit_read_only


class Read(NamedTuple):
    """A read of the name and its parents, innermost first (``parents[0]`` holds ``node``)."""

    node: cst.Name
    parents: Sequence[cst.CSTNode]


@dataclass(frozen=True)
class LaterReads:
    """The reads in source order; ``rebound_after``: how many came before the first
    rebinding (None: the name is never bound again)."""

    reads: list[Read] = field(default_factory=list)
    rebound_after: int | None = None

    def until_rebound(self) -> list[Read]:
        """The reads of the binding's own value (those before the name is bound again)."""
        end = self.rebound_after
        return self.reads if end is None else self.reads[:end]


def later_reads(function: cst.FunctionDef, name: str, binding: cst.CSTNode) -> LaterReads:
    """The reads of ``name`` in ``function``'s body after the statement ``binding``."""
    finder = _Reads(name, binding)
    visit_read_only(function.body, finder)
    return LaterReads(finder.reads, finder.rebound_after)


class _Reads(cst.CSTVisitor):
    def __init__(self, name: str, binding: cst.CSTNode) -> None:
        self.name = name
        self.binding = binding
        self.after = False
        self.stack: list[cst.CSTNode] = []
        self.reads: list[Read] = []
        self.rebound_after: int | None = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.Lambda)) and self.stack:
            return False
        if self.after and isinstance(node, cst.Name) and node.value == self.name:
            self._seen(node)
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()
        if original_node is self.binding:
            self.after = True

    def _seen(self, node: cst.Name) -> None:
        parent = self.stack[-1] if self.stack else None
        if isinstance(parent, cst.AssignTarget):
            if self.rebound_after is None:
                self.rebound_after = len(self.reads)
            return
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return
        self.reads.append(Read(node, list(reversed(self.stack))))

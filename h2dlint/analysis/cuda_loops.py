"""The per-item loops of a function that run on CUDA: those in a branch taken only off CUDA
(``if not all(x.is_cuda for x in xs):``, ``if device.type != "cuda":``) are a CPU or mixed
devices' fallback, and a call of the function on a GPU takes the other branch; so a call of a
helper whose only per-item loop is there is no per-item transfer (HTD101's calls of a mover)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

import libcst as cst

from h2dlint.analysis.device_branches import off_cuda_branch
from h2dlint.analysis.filled_defaults import filled_values
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.walk import visit_read_only


class _Loop(Protocol):
    @property
    def node(self) -> cst.CSTNode: ...


class _Paths(cst.CSTVisitor):
    """The ancestors (outermost first) of each node of ``wanted``."""

    def __init__(self, wanted: set[cst.CSTNode]) -> None:
        self.wanted = wanted
        self.stack: list[cst.CSTNode] = []
        self.paths: dict[cst.CSTNode, list[cst.CSTNode]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        if node in self.wanted:
            self.paths[node] = list(self.stack)
        return len(self.paths) < len(self.wanted)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


L = TypeVar("L", bound=_Loop)


def cuda_loops(
    function: cst.FunctionDef, loops: Sequence[L], provenance: Provenance, frame: Frame
) -> list[L]:
    """``loops`` (of ``function``) without those in a branch taken only off CUDA."""
    if not loops:
        return []
    finder = _Paths({loop.node for loop in loops})
    visit_read_only(function, finder)
    resolve = filled_values(provenance.bindings(frame))
    return [
        loop
        for loop in loops
        if not off_cuda_branch(finder.paths.get(loop.node, [function]), resolve)
    ]

"""Python lists whose elements are tensors.

``torch.tensor(xs, device=dev)`` of such a list converts every element to a Python number
first: one device-to-host read (a sync) per element that lives on a device, then one more
pageable host-to-device copy of the values. ``torch.stack(xs)`` joins the tensors where they
are. This module says when the elements the analysis can see are all tensors, and where.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.walk import visit_read_only


def tensor_elements(provenance: Provenance, seq: cst.BaseExpression, frame: Frame) -> Where | None:
    """Where the elements of the list ``seq`` are when every one of them is surely a tensor:
    ``Where.DEVICE`` when one is proven on a device, ``Where.UNKNOWN`` when none is placed.
    None when ``seq``'s elements cannot all be seen, one may be a Python value, or one is on
    the host (a list of host tensors is host data like any other).

    The elements seen: a list comprehension's element, a display's elements (no ``*``), and
    for a name bound only to such lists or to ``[]``, what ``name.append(...)`` adds."""
    values = _elements(provenance, seq, frame)
    if not values:
        return None
    placed = False
    for value in values:
        where = provenance.fact(value, frame).where
        if where.on_host:
            return None
        if where is Where.DEVICE:
            placed = True
        elif tensor_evidence(provenance, value, frame) is None:
            return None
    return Where.DEVICE if placed else Where.UNKNOWN


def _elements(
    provenance: Provenance, seq: cst.BaseExpression, frame: Frame, *, named: bool = True
) -> list[cst.BaseExpression]:
    if isinstance(seq, cst.ListComp):
        return [seq.elt]
    if isinstance(seq, cst.List):
        if any(not isinstance(e, cst.Element) for e in seq.elements):
            return []  # ``[*xs, y]``: what ``xs`` holds is not seen here
        return [e.value for e in seq.elements]
    if not (named and isinstance(seq, cst.Name)):
        return []
    reaching = provenance.bindings(frame).reaching_bindings(seq)
    if not reaching:
        return []
    found: list[cst.BaseExpression] = []
    for binding in reaching:
        value = binding.value
        if isinstance(value, cst.List) and not value.elements:
            appended = provenance.appended(frame, seq.value)
            if not appended or _grown_otherwise(frame.function, seq.value):
                return []
            found.extend(appended)
            continue
        if value is None:
            return []  # a parameter, a loop target, an unpacked name: not seen
        elements = _elements(provenance, value, frame, named=False)
        if not elements:
            return []
        found.extend(elements)
    return found


class _OtherGrowth(cst.CSTVisitor):
    """Whether a list is grown other than by ``name.append(...)``: ``extend``, ``insert``,
    ``+=``, or an item assigned."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("extend", "insert", "__setitem__")
            and isinstance(func.value, cst.Name)
            and func.value.value == self.name
        ):
            self.found = True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and node.target.value == self.name:
            self.found = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        target = node.target
        if (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and target.value.value == self.name
        ):
            self.found = True


def _grown_otherwise(function: cst.CSTNode, name: str) -> bool:
    finder = _OtherGrowth(name)
    visit_read_only(function, finder)
    return finder.found

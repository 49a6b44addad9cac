"""Views: indexing and view methods, and whether the view they make is contiguous.

A copy from a non-contiguous view of pinned memory is staged like a pageable one (measured:
``Pageable -> Device``), so contiguity matters as much as pinning.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import UNKNOWN_FACT, Fact, Where

if TYPE_CHECKING:
    from h2dlint.analysis.frames import Frame
    from h2dlint.analysis.provenance import Provenance

STRIDED_VIEW_METHODS = frozenset(
    {
        "t",
        "transpose",
        "permute",
        "swapaxes",
        "swapdims",
        "movedim",
        "expand",
        "expand_as",
        "unfold",
        "diagonal",
        "as_strided",
    }
)
SAME_LAYOUT_VIEW_METHODS = frozenset({"view", "view_as", "squeeze", "unsqueeze", "detach"})


class Index(enum.Enum):
    CONTIGUOUS = "contiguous view"
    STRIDED = "strided view"
    ADVANCED = "advanced indexing (a fresh tensor)"
    UNKNOWN = "unknown"


def _is_int_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def _is_full(piece: cst.Slice) -> bool:
    return piece.lower is None and piece.upper is None and piece.step is None


def _has_step(piece: cst.Slice) -> bool:
    step = piece.step
    return step is not None and not (isinstance(step, cst.Integer) and step.value == "1")


def _element_kind(
    provenance: Provenance, element: cst.SubscriptElement, frame: Frame, depth: int
) -> str:
    piece = element.slice
    if isinstance(piece, cst.Slice):
        if _has_step(piece):
            return "step"
        return "full" if _is_full(piece) else "partial"
    value = piece.value
    if isinstance(value, cst.Ellipsis):
        return "ellipsis"
    if isinstance(value, cst.Name) and value.value == "None":
        return "newaxis"
    if _is_int_literal(value):
        return "int"
    if isinstance(value, (cst.List, cst.ListComp, cst.Tuple)):
        return "advanced"
    if provenance.fact(value, frame, depth + 1).known:
        return "advanced"  # indexing with a tensor
    return "unknown"


def classify_index(
    provenance: Provenance, node: cst.Subscript, frame: Frame, depth: int = 0
) -> Index:
    state = "leading"
    strided = False
    for element in node.slice:
        kind = _element_kind(provenance, element, frame, depth)
        if kind == "advanced":
            return Index.ADVANCED
        if kind == "unknown":
            return Index.UNKNOWN
        if kind == "newaxis":
            continue
        if kind == "step":
            strided = True
        elif kind == "ellipsis":
            state = "ellipsis"
        elif kind == "int":
            strided = strided or state != "leading"
        elif kind == "full":
            state = "full" if state == "leading" else state
        elif kind == "partial":
            strided = strided or state != "leading"
            state = "partial" if state == "leading" else state
    return Index.STRIDED if strided else Index.CONTIGUOUS


def subscript_fact(provenance: Provenance, node: cst.Subscript, frame: Frame, depth: int) -> Fact:
    base = provenance.fact(node.value, frame, depth + 1)
    if not base.known:
        return UNKNOWN_FACT
    kind = classify_index(provenance, node, frame, depth)
    if kind is Index.ADVANCED:
        return base.derived()
    if kind is Index.CONTIGUOUS:
        return base.view(contiguous=True)
    if kind is Index.STRIDED:
        return base.view(contiguous=False)
    # A view or a gather: placement is kept, pinning is not known.
    return Fact(Where.DEVICE if base.where is Where.DEVICE else Where.HOST)


def _literal_dim(call: cst.Call) -> int | None:
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value == "dim":
            value = arg.value
            negative = False
            if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
                value, negative = value.expression, True
            if isinstance(value, cst.Integer):
                number = int(value.value)
                return -number if negative else number
            return None
    return None


def view_method_fact(
    provenance: Provenance,
    method: str,
    base: cst.BaseExpression,
    call: cst.Call,
    frame: Frame,
    depth: int,
) -> Fact | None:
    """The fact of ``base.method(...)`` when ``method`` makes a view, else None."""
    if method in STRIDED_VIEW_METHODS:
        return provenance.fact(base, frame, depth + 1).view(contiguous=False)
    if method in SAME_LAYOUT_VIEW_METHODS:
        inner = provenance.fact(base, frame, depth + 1)
        return inner.view(contiguous=inner.contiguous)
    if method in ("narrow", "select"):
        dim = _literal_dim(call)
        inner = provenance.fact(base, frame, depth + 1)
        if dim == 0:
            return inner.view(contiguous=True)
        return inner.view(contiguous=False if dim is not None else None)
    return None

"""Views: indexing and view methods, and whether the view they make is contiguous.

A copy from a non-contiguous view of pinned memory is staged like a pageable one (measured:
``Pageable -> Device``), so contiguity matters as much as pinning.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import UNKNOWN_FACT, Fact, Where
from h2dlint.analysis.frames import unrebound_parameter_annotation
from h2dlint.analysis.loop_annotations import python_int

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource
    from h2dlint.analysis.frames import Frame

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
    provenance: FactSource, element: cst.SubscriptElement, frame: Frame, depth: int
) -> str:
    piece = element.slice
    if isinstance(piece, cst.Slice):
        if _has_step(piece):
            return "step"
        return "full" if _is_full(piece) else "partial"
    if not isinstance(piece, cst.Index):  # libcst has no third kind of slice today
        return "unknown"
    value = piece.value
    if isinstance(value, cst.Ellipsis):
        return "ellipsis"
    if isinstance(value, cst.Name) and value.value == "None":
        return "newaxis"
    if _is_int_literal(value) or python_int(provenance.bindings(frame), value, frame):
        return "int"  # also a number by its annotation (``src_blocks[0]`` of ``list[int]``)
    if isinstance(value, (cst.List, cst.ListComp, cst.Tuple)):
        return "advanced"
    if provenance.fact(value, frame, depth + 1).known:
        return "advanced"  # indexing with a tensor
    if isinstance(value, cst.Name) and _index_tensor_parameter(provenance, value, frame):
        return "advanced"  # ``table[order]`` of ``order: torch.Tensor``, wherever it lives
    return "unknown"


# Annotations of an index tensor: indexing with one gathers (a fresh tensor), not a view.
_INDEX_TENSOR_TYPES = frozenset(
    {"torch.Tensor", "torch.LongTensor", "torch.IntTensor", "torch.BoolTensor"}
)


def _index_tensor_parameter(provenance: FactSource, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is only ever its function's parameter (nothing rebinds it) annotated as
    a tensor (``order: torch.Tensor``): where it lives is not known, but that it is a tensor
    is, and a tensor as an index makes advanced indexing (a gather into a fresh tensor)."""
    annotation = unrebound_parameter_annotation(provenance.bindings(frame), name, frame)
    return annotation is not None and provenance.qualify(annotation) in _INDEX_TENSOR_TYPES


def classify_index(
    provenance: FactSource, node: cst.Subscript, frame: Frame, depth: int = 0
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


def dict_entry(
    provenance: FactSource, node: cst.Subscript, frame: Frame
) -> tuple[cst.BaseExpression, Frame] | None:
    """The value ``d["key"]`` reads when every value ``d`` may hold is a dict display with that
    key: a local name, or ``self.d`` of the class around (``self.host = {"positions":
    torch.zeros(..., pin_memory=True), ...}`` in ``__init__``: named buffers kept in a dict)."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = node.slice[0].slice.value
    if not isinstance(key, cst.SimpleString):
        return None
    base = node.value
    if isinstance(base, cst.Name):
        values = [(v, frame) for v in provenance.bindings(frame).reaching(base)]
    elif (
        isinstance(base, cst.Attribute)
        and isinstance(base.value, cst.Name)
        and frame.cls is not None
        and base.value.value == frame.self_name
    ):
        values = list(provenance.index.attributes.get(frame.cls, {}).get(base.attr.value, []))
    else:
        return None
    found: list[tuple[cst.BaseExpression, Frame]] = []
    for value, where in values:
        if not isinstance(value, cst.Dict):
            return None
        entries = [
            e.value
            for e in value.elements
            if isinstance(e, cst.DictElement)
            and isinstance(e.key, cst.SimpleString)
            and e.key.evaluated_value == key.evaluated_value
        ]
        if len(entries) != 1:
            return None
        found.append((entries[0], where))
    return found[0] if len(found) == 1 else None


def subscript_fact(provenance: FactSource, node: cst.Subscript, frame: Frame, depth: int) -> Fact:
    entry = dict_entry(provenance, node, frame)
    if entry is not None:
        return provenance.fact(entry[0], entry[1], depth + 1)
    base = provenance.fact(node.value, frame, depth + 1)
    if not base.known:
        return UNKNOWN_FACT
    if _field_key(node):
        # ``batch["pixel_values"]``: no tensor takes a string index, so the base is a
        # collection whose fact is its fields' (a loader's batch): the whole field, as it is.
        return base
    kind = classify_index(provenance, node, frame, depth)
    if kind is Index.ADVANCED:
        return base.derived()
    if kind is Index.CONTIGUOUS:
        return base.view(contiguous=True)
    if kind is Index.STRIDED:
        return base.view(contiguous=False)
    # A view or a gather: placement is kept, pinning is not known.
    return Fact(Where.DEVICE if base.where is Where.DEVICE else Where.HOST)


def _field_key(node: cst.Subscript) -> bool:
    """``x["name"]``: one string literal as the index."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return False
    return isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString))


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
    provenance: FactSource,
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


# -- layout: dense, permuted or strided ---------------------------------------------------------
#
# A non-contiguous view is not always copied through pageable memory. ``x.to(device)`` keeps the
# strides of a tensor that is non-overlapping and dense (a whole-tensor transpose or permute of a
# contiguous tensor), so ``pinned.T.to(device, non_blocking=True)`` is one plain DMA from pinned
# memory. A view that skips memory (``buf[:, :n]``, ``buf[::2]``, ``buf.narrow(1, ...)``) is not
# dense: ``.to`` gives it a contiguous destination and PyTorch first gathers it into a pageable
# temporary. ``dst.copy_(src)`` needs the same strides on both sides, so it stages a permuted
# source too, unless the destination is permuted alike.


class Layout(enum.Enum):
    """How a tensor expression's elements lie in memory."""

    DENSE = "contiguous"
    PERMUTED = "dense but permuted (a transpose or permute of a whole contiguous tensor)"
    STRIDED = "not dense (a slice of an inner dimension, a step, a diagonal)"
    UNKNOWN = "unknown"


PERMUTING_VIEW_METHODS = frozenset({"t", "transpose", "permute", "swapaxes", "swapdims", "movedim"})
PERMUTING_ATTRIBUTES = frozenset({"T", "mT", "H", "mH"})
SPARSE_VIEW_METHODS = frozenset({"unfold", "diagonal"})


def _join_layouts(layouts: list[Layout]) -> Layout:
    if layouts and all(layout is layouts[0] for layout in layouts):
        return layouts[0]
    return Layout.UNKNOWN


def _permuted(inner: Layout) -> Layout:
    if inner in (Layout.DENSE, Layout.PERMUTED):
        return Layout.PERMUTED
    return inner


def _only_full(node: cst.Subscript) -> bool:
    for element in node.slice:
        piece = element.slice
        if isinstance(piece, cst.Slice):
            if not _is_full(piece):
                return False
        elif not (
            isinstance(piece, cst.Index)
            and (
                isinstance(piece.value, cst.Ellipsis)
                or (isinstance(piece.value, cst.Name) and piece.value.value == "None")
            )
        ):
            return False
    return True


def _subscript_layout(
    provenance: FactSource, node: cst.Subscript, frame: Frame, depth: int
) -> Layout:
    inner = layout(provenance, node.value, frame, depth + 1)
    if inner is Layout.UNKNOWN:
        return Layout.UNKNOWN
    if inner is Layout.PERMUTED:
        # Rows of a transpose are columns of the original: only a full index keeps it dense.
        return Layout.PERMUTED if _only_full(node) else Layout.UNKNOWN
    kind = classify_index(provenance, node, frame, depth)
    if kind is Index.STRIDED:
        return Layout.STRIDED
    if kind is Index.CONTIGUOUS and inner is Layout.DENSE:
        return Layout.DENSE
    # A contiguous index of a strided view (``buf[:, :n][0]``) may be dense again; a gather is
    # a fresh tensor whose layout the fact knows.
    return Layout.UNKNOWN


def _method_layout(
    provenance: FactSource, call: cst.Call, frame: Frame, depth: int
) -> Layout | None:
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    method, base = func.attr.value, func.value
    if method in PERMUTING_VIEW_METHODS:
        return _permuted(layout(provenance, base, frame, depth + 1))
    if method in SPARSE_VIEW_METHODS:
        inner = layout(provenance, base, frame, depth + 1)
        return Layout.STRIDED if inner is not Layout.UNKNOWN else Layout.UNKNOWN
    if method in SAME_LAYOUT_VIEW_METHODS:
        return layout(provenance, base, frame, depth + 1)
    if method in ("narrow", "select"):
        dim = _literal_dim(call)
        inner = layout(provenance, base, frame, depth + 1)
        if dim is None or dim < 0 or inner is Layout.UNKNOWN:
            return Layout.UNKNOWN  # a negative dim is the first one of a 1-d tensor
        if dim == 0:
            return Layout.DENSE if inner is Layout.DENSE else Layout.UNKNOWN
        return Layout.STRIDED if inner in (Layout.DENSE, Layout.STRIDED) else Layout.UNKNOWN
    if method in ("expand", "expand_as", "as_strided"):
        return Layout.UNKNOWN
    if method == "contiguous":
        return Layout.DENSE
    return None


def _self_attribute_layout(
    provenance: FactSource, node: cst.Attribute, frame: Frame, depth: int
) -> Layout | None:
    base = node.value
    if not (isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name):
        return None
    assigned = provenance.index.attributes.get(frame.cls, {}).get(node.attr.value, [])
    if not assigned or any(value is None for value, _ in assigned):
        return Layout.UNKNOWN
    return _join_layouts(
        [
            layout(provenance, value, where, depth + 1)
            for value, where in assigned
            if value is not None
        ]
    )


def layout(
    provenance: FactSource, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> Layout:
    """Whether ``node``'s elements are dense, a dense permutation, or strided.

    Conservative like the facts: ``DENSE`` where the fact proves the tensor contiguous, a
    permutation or a strided view only where the view chain down to a dense tensor is seen.
    """
    if depth > 12:
        return Layout.UNKNOWN
    found: Layout | None = None
    if isinstance(node, cst.Subscript):
        found = _subscript_layout(provenance, node, frame, depth)
    elif isinstance(node, cst.Attribute):
        if node.attr.value in PERMUTING_ATTRIBUTES:
            found = _permuted(layout(provenance, node.value, frame, depth + 1))
        elif node.attr.value == "data":
            found = layout(provenance, node.value, frame, depth + 1)
        else:
            found = _self_attribute_layout(provenance, node, frame, depth)
    elif isinstance(node, cst.Call):
        found = _method_layout(provenance, node, frame, depth)
    elif isinstance(node, cst.Name):
        values = provenance.bindings(frame).reaching(node)
        if values and all(value is not None for value in values):
            found = _join_layouts(
                [
                    layout(provenance, value, frame, depth + 1)
                    for value in values
                    if value is not None
                ]
            )
    elif isinstance(node, cst.IfExp):
        found = _join_layouts(
            [
                layout(provenance, node.body, frame, depth + 1),
                layout(provenance, node.orelse, frame, depth + 1),
            ]
        )
    if found is not None and found is not Layout.UNKNOWN:
        return found
    fact = provenance.fact(node, frame, depth)
    if fact.contiguous is True:
        return Layout.DENSE
    return found if found is not None else Layout.UNKNOWN


# -- row segments and permutations, syntactically ---------------------------------------------
def _dotted(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _pure(node: cst.BaseExpression | None) -> bool:
    """An expression that reads the same every time and does nothing else: names, attributes,
    integers and arithmetic on them."""
    if node is None:
        return True
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, (cst.Name, cst.Attribute)):
        return _dotted(node)
    if isinstance(node, cst.UnaryOperation):
        return _pure(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _pure(node.left) and _pure(node.right)
    return False


def row_slices(node: cst.BaseExpression, any_rows: bool = False) -> cst.Slice | None:
    """The inner slice of ``name[:, a:b]`` (a full leading slice, an inner slice without step);
    with ``any_rows``, also of ``name[:m, a:b]`` (some leading rows: as strided)."""
    if not isinstance(node, cst.Subscript) or not _dotted(node.value) or len(node.slice) != 2:
        return None
    lead, inner = node.slice[0].slice, node.slice[1].slice
    if not isinstance(lead, cst.Slice) or lead.step is not None:
        return None
    if any((lead.lower, lead.upper)) and not (any_rows and _pure(lead.lower) and _pure(lead.upper)):
        return None
    if not isinstance(inner, cst.Slice) or inner.step is not None:
        return None
    if not (_pure(inner.lower) and _pure(inner.upper)):
        return None
    return inner


def permutation_view(node: cst.BaseExpression) -> bool:
    """``x.T``, ``x.mT``, ``x.t()``, ``x.transpose(...)``, ``x.permute(...)``."""
    if isinstance(node, cst.Attribute):
        return node.attr.value in PERMUTING_ATTRIBUTES
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in PERMUTING_VIEW_METHODS
    )

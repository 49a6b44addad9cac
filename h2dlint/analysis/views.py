"""Views: indexing and view methods, and whether the view they make is contiguous.

A copy from a non-contiguous view of pinned memory is staged like a pageable one (measured:
``Pageable -> Device``), so contiguity matters as much as pinning.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import UNKNOWN_FACT, Fact, Where
from h2dlint.walk import ReadOnlyVisitor, visit_read_only

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource
    from h2dlint.analysis.frames import Frame
    from h2dlint.imports import ImportTable

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
    if _is_int_literal(value):
        return "int"
    if isinstance(value, (cst.List, cst.ListComp, cst.Tuple)):
        return "advanced"
    if provenance.fact(value, frame, depth + 1).known:
        return "advanced"  # indexing with a tensor
    return "unknown"


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


def subscript_fact(provenance: FactSource, node: cst.Subscript, frame: Frame, depth: int) -> Fact:
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


# -- aliasing: the buffer a view reads, and writes to it ----------------------------------------
#
# Making a copy from pinned memory asynchronous is only correct when the host leaves the pinned
# buffer alone until the copy has run. These helpers find the buffer behind a view expression and
# the host writes to it in one function, so that a rule can tell a buffer rewritten right after the
# copy (the blocking copy is what keeps that code correct) from one that is not.

ALIAS_DEPTH = 4


# Methods whose result shares (or, on the host, may share) the receiver's memory.
ALIASING_METHODS = (
    STRIDED_VIEW_METHODS
    | SAME_LAYOUT_VIEW_METHODS
    | PERMUTING_VIEW_METHODS
    | frozenset(
        {
            "narrow",
            "select",
            "numpy",
            "reshape",
            "flatten",
            "unflatten",
            "ravel",
            "contiguous",
            "cpu",
            "split",
            "chunk",
            "unbind",
        }
    )
)


def view_root(node: cst.BaseExpression) -> str | None:
    """The dotted name of the buffer a view expression reads (``self.buf`` for
    ``self.buf[:, :n].T``, ``buf`` for ``buf.narrow(1, 0, n)``), or None."""
    while True:
        if isinstance(node, cst.Subscript) or (
            isinstance(node, cst.Attribute) and node.attr.value in (*PERMUTING_ATTRIBUTES, "data")
        ):
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ALIASING_METHODS
        ):
            node = node.func.value
        else:
            break
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def buffer_roots(provenance: FactSource, node: cst.BaseExpression, frame: Frame) -> set[str]:
    """Every name under which the memory ``node`` reads may be written in ``frame``: its root,
    and, for a local name bound to a view or alias of another buffer, that buffer's root too."""
    roots: set[str] = set()
    pending = [(view_root(node), 0)]
    bindings = provenance.bindings(frame)
    while pending:
        root, depth = pending.pop()
        if root is None or root in roots:
            continue
        roots.add(root)
        if "." in root or depth >= ALIAS_DEPTH:
            continue
        for value in bindings.of(root):
            if value is not None:
                pending.append((view_root(value), depth + 1))
    return roots


def _in_place(method: str) -> bool:
    return method.endswith("_") and not method.startswith("_")


@dataclass(frozen=True)
class Write:
    """A host write to a buffer: its root, the statement it is in (by source order), the small
    statement's index in that line, and the loops around it."""

    root: str
    statement: int
    small: int
    loops: frozenset[int]


@dataclass
class FunctionWrites:
    """The writes in one function (not in nested functions or classes), and where each statement
    is: its source order and the loops around it."""

    writes: list[Write] = field(default_factory=list)
    statements: dict[cst.CSTNode, tuple[int, frozenset[int]]] = field(default_factory=dict)

    def written_after(self, statement: cst.CSTNode, small: int, roots: set[str]) -> bool:
        """Whether one of ``roots`` is written after the small statement ``small`` of
        ``statement`` runs: later in the function, later on the same line, or anywhere in a loop
        around it (the next iteration)."""
        where = self.statements.get(statement)
        if where is None:
            return False
        order, loops = where
        for write in self.writes:
            if write.root not in roots:
                continue
            if write.statement > order or (write.statement == order and write.small > small):
                return True
            if loops & write.loops:
                return True
        return False

    def written(self, roots: set[str]) -> bool:
        """Whether one of ``roots`` is written anywhere in the function."""
        return any(write.root in roots for write in self.writes)


class _WriteCollector(ReadOnlyVisitor):
    def __init__(self, root: cst.CSTNode, imports: ImportTable) -> None:
        self.root = root
        self.imports = imports
        self.result = FunctionWrites()
        self.statement = -1
        self.small = 0
        self.loops: list[int] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.statement = len(self.result.statements)
            self.small = 0
            self.result.statements[node] = (self.statement, frozenset(self.loops))
            if isinstance(node, (cst.For, cst.While)):
                self.loops.append(self.statement)
        elif isinstance(node, cst.BaseSmallStatement):
            self.small += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, (cst.For, cst.While)) and self.loops:
            self.loops.pop()

    def _add(self, target: cst.BaseExpression) -> None:
        root = view_root(target)
        if root is not None:
            self.result.writes.append(
                Write(root, self.statement, self.small, frozenset(self.loops))
            )

    def _target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript):
            self._add(target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)  # ``buf += x`` adds in place

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        first = node.args[0].value if node.args and node.args[0].keyword is None else None
        qualified = self.imports.qualify(func)
        if qualified is not None:
            # ``torch.nn.init.zeros_(w)``, ``np.copyto(dst, src)``: the first argument is written.
            method = qualified.rsplit(".", 1)[-1]
            if first is not None and (_in_place(method) or method == "copyto"):
                self._add(first)
        elif isinstance(func, cst.Attribute) and _in_place(func.attr.value):
            self._add(func.value)
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                self._add(arg.value)


def function_writes(function: cst.FunctionDef | cst.Module, imports: ImportTable) -> FunctionWrites:
    """Every host write to a named buffer in ``function`` (not in nested functions or classes):
    subscript assignments, augmented assignments, in-place methods (``copy_``, ``fill_``, ...),
    ``out=`` arguments and ``np.copyto``."""
    collector = _WriteCollector(function, imports)
    visit_read_only(function, collector)
    return collector.result

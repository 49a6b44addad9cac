"""Round trips: the copies to the device that an expression is, through reshapes, indexing,
joins and names bound once (``torch.stack([t.cuda() for t in items])[0]``), with whether each
copy's source is proven host memory; how often a function reads a name. HTD303 (a copy to the
device and straight back) asks these.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import MAX_DEPTH, Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.torch_api import DTYPE_METHODS, JOINS
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import visit_read_only

# Per function of a file, each under its own typed key.
_READS: SharedKey[dict[cst.CSTNode, dict[str, int]]] = SharedKey("reads per name")
_IN_PLACE: SharedKey[dict[cst.CSTNode, dict[str, list[int]]]] = SharedKey("names changed in place")


# Methods that only reshape, view, select or convert: no work that needs the device.
RESHAPES = DTYPE_METHODS | frozenset(
    {
        "view",
        "reshape",
        "flatten",
        "squeeze",
        "unsqueeze",
        "permute",
        "transpose",
        "t",
        "contiguous",
        "expand",
        "narrow",
        "select",
        "detach",
        "clone",
    }
)
# Whole-value reductions the host computes from the data it copied in one pass (`max(lens)`,
# `sum(lens)`): read back as a number, the device adds nothing but a sync (Session 35,
# recall35: `torch.max(torch.tensor(lens, device="cuda")).item()`, a serving engine's
# `seq_lens_t.max().item()` of the lengths it just built from its list).
REDUCTIONS = frozenset({"max", "min", "sum", "amax", "amin", "any", "all"})
TORCH_REDUCTIONS = frozenset(f"torch.{name}" for name in REDUCTIONS)
# Builtins that read a tensor without changing it.
READING_BUILTINS = frozenset({"len", "isinstance", "print", "type", "id", "repr", "str"})
JOIN_NAMES = frozenset(name.rsplit(".", 1)[1] for name in JOINS)
CONVERTERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})


@dataclass(frozen=True)
class UpCopy:
    """A copy to the device that a down copy reads back: the copy, and whether its source is
    proven host memory (else it is one of several per-item copies of unknown items)."""

    call: cst.Call
    proven: bool


# The reads back: copies to the host and reads of a tensor's values.
DOWN_METHODS = frozenset({"cpu", "tolist", "item", "to"})


def round_trip_read(
    provenance: Provenance,
    node: cst.Call,
    frame: Frame | None = None,
    names: list[str] | None = None,
) -> list[UpCopy] | None:
    """The up copies a read back ``node`` (``.cpu()``, ``.tolist()``, ``.item()``, ``.to(host)``)
    copies straight back (HTD303's finding), else None. ``names``, when given, collects the
    names the trace went through. HTD202 asks it too: a read back that is a round trip is
    reported as one (the more specific finding), not also as a sync on a hot path."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in DOWN_METHODS:
        return None
    frame = provenance.current_frame() if frame is None else frame
    if func.attr.value == "to" and provenance.to_target(node, frame) is not Target.HOST:
        return None
    if func.attr.value in ("cpu", "tolist", "item") and node.args:
        return None
    ups = trace_up_copies(provenance, func.value, frame, set(), 0, [] if names is None else names)
    return ups or None


def trace_up_copies(
    provenance: Provenance,
    node: cst.BaseExpression,
    frame: Frame,
    seen: set[str],
    depth: int,
    names: list[str],
) -> list[UpCopy] | None:
    """The up copies that ``node`` is, through reshapes, indexing, joins and names; None when
    anything else is in the way."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, cst.Subscript):
        if any(_has_call(element) for element in node.slice):
            return None
        return trace_up_copies(provenance, node.value, frame, seen, depth + 1, names)
    if isinstance(node, cst.Name):
        return _through_name(provenance, node, frame, seen, depth, names)
    if not isinstance(node, cst.Call):
        return None
    up = _up_copy(provenance, node, frame)
    if up is not None:
        return [up] if up.proven else None
    func = node.func
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        if method in RESHAPES or (
            method == "to" and provenance.to_target(node, frame) is Target.DTYPE
        ):
            if any(_has_call(arg.value) for arg in node.args):
                return None
            return trace_up_copies(provenance, func.value, frame, seen, depth + 1, names)
        if method in REDUCTIONS and _plain_reduction(node):
            return trace_up_copies(provenance, func.value, frame, seen, depth + 1, names)
    qualified = provenance.qualify(func)
    if qualified in TORCH_REDUCTIONS and _plain_reduction(node, operand=True):
        return trace_up_copies(provenance, node.args[0].value, frame, seen, depth + 1, names)
    if qualified in JOINS and keyword(node, "out") is None:
        return _join(provenance, node, frame, seen, depth, names)
    return None


def _plain_reduction(node: cst.Call, operand: bool = False) -> bool:
    """A reduction over the whole value: no argument (beyond the operand of ``torch.max(x)``),
    no ``dim``, ``out=`` or second tensor (``torch.max(a, b)`` is an elementwise maximum)."""
    return len(node.args) == (1 if operand else 0) and (
        not operand or (node.args[0].keyword is None and node.args[0].star == "")
    )


def _through_name(
    provenance: Provenance,
    node: cst.Name,
    frame: Frame,
    seen: set[str],
    depth: int,
    names: list[str],
) -> list[UpCopy] | None:
    if node.value in seen:
        return None
    values = provenance.bindings(frame).reaching(node)
    if len(values) != 1 or values[0] is None:
        return None
    if _changed_before(provenance, frame, node):
        return None
    names.append(node.value)
    return trace_up_copies(provenance, values[0], frame, seen | {node.value}, depth + 1, names)


def _join(
    provenance: Provenance,
    node: cst.Call,
    frame: Frame,
    seen: set[str],
    depth: int,
    names: list[str],
) -> list[UpCopy] | None:
    items = first_positional(node)
    if isinstance(items, (cst.List, cst.Tuple)) and items.elements:
        found: list[UpCopy] = []
        for element in items.elements:
            if isinstance(element, cst.StarredElement):
                return None
            inner = trace_up_copies(provenance, element.value, frame, seen, depth + 1, names)
            if inner is None:
                return None
            found += inner
        return found
    if isinstance(items, (cst.ListComp, cst.GeneratorExp)) and items.for_in.inner_for_in is None:
        made = items.elt
        if not isinstance(made, cst.Call) or not _moves(provenance, made, frame):
            return None
        source = made.func.value  # type: ignore[attr-defined]
        if not _of_loop_item(source, items.for_in.target):
            return None
        where = provenance.where(source, frame)
        if where is Where.UNKNOWN and isinstance(source, cst.Name):  # the loop variable
            where = provenance.sequence_where(items.for_in.iter, frame)
        if where is Where.DEVICE:
            return None
        return [UpCopy(made, where.on_host)]
    return None


def _moves(provenance: Provenance, node: cst.Call, frame: Frame) -> bool:
    """``x.cuda()`` or ``x.to(<device>)``."""
    func = node.func
    if not isinstance(func, cst.Attribute):
        return False
    if func.attr.value == "cuda":
        return True
    return func.attr.value == "to" and provenance.to_target(node, frame) is Target.DEVICE


def _up_copy(provenance: Provenance, node: cst.Call, frame: Frame) -> UpCopy | None:
    """``node`` as a copy to the device, with whether its source is proven host memory."""
    if _moves(provenance, node, frame):
        source = node.func.value  # type: ignore[attr-defined]
        where = provenance.where(source, frame)
        return UpCopy(node, where.on_host or provenance.is_host_data(source, frame))
    if provenance.qualify(node.func) in CONVERTERS:
        device = keyword(node, "device")
        data = first_positional(node)
        if device is None or data is None:
            return None
        if provenance.device_target(device.value, frame, allocation=True) is not Target.DEVICE:
            return None
        return UpCopy(node, provenance.is_host_data(data, frame))
    return None


def _of_loop_item(node: cst.BaseExpression, target: cst.BaseExpression) -> bool:
    """``p``, ``p.x`` or ``p[k]`` of a comprehension's loop variable ``p``."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    if not isinstance(node, cst.Name) or not isinstance(target, cst.Name):
        return False
    return node.value == target.value


class _AnyCall(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, call: cst.Call) -> bool:
        self.found = True
        return False


def _has_call(node: cst.CSTNode) -> bool:
    collector = _AnyCall()
    visit_read_only(node, collector)
    return collector.found


# Methods that hand out a tensor's memory: a kernel, ctypes or another framework may write
# through the address (``make_ptr(t.data_ptr())`` for a CUTLASS kernel).
_ADDRESS_TAKEN = frozenset(
    {"data_ptr", "untyped_storage", "__dlpack__", "__cuda_array_interface__"}
)


class _InPlace(cst.CSTVisitor):
    """Where a function changes a name in place: ``x.add_()``, ``x[i] = ...``, ``x += ...``,
    ``out=x``, names whose memory it hands out (``x.data_ptr()``) and names passed to a call
    that may write them; each change with the lines from which it can reach a read: its own
    line on, and the whole of every loop around it (the next iteration reads it)."""

    def __init__(self, context: FileContext) -> None:
        self.context = context
        self.changes: dict[str, list[int]] = {}
        self._loops: list[tuple[int, int]] = []

    def _span(self, node: cst.CSTNode) -> tuple[int, int]:
        position = self.context.position(node)
        return position.start.line, position.end.line

    def visit_For(self, node: cst.For) -> None:
        self._loops.append(self._span(node))

    def leave_For(self, original_node: cst.For) -> None:
        self._loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(self._span(node))

    def leave_While(self, original_node: cst.While) -> None:
        self._loops.pop()

    def _root(self, node: cst.BaseExpression, at: cst.CSTNode) -> None:
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        if isinstance(node, cst.Name):
            self._add(node.value, at)

    def _add(self, name: str, at: cst.CSTNode) -> None:
        line = self._span(at)[0]
        # From the change's line on, or from the start of the outermost loop around it.
        first = min([line, *(start for start, _ in self._loops)])
        self.changes.setdefault(name, []).append(first)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if (method.endswith("_") and not method.endswith("__")) or method in _ADDRESS_TAKEN:
                self._root(func.value, node)
        out = keyword(node, "out")
        if out is not None:
            self._root(out.value, node)
        # Passed to a function (``all_reduce(t)``, ``fill(buf)``): it may write the tensor.
        if isinstance(func, cst.Name) and func.value in READING_BUILTINS:
            return
        if isinstance(func, cst.Attribute) and func.attr.value in RESHAPES | JOIN_NAMES:
            return
        if isinstance(func, cst.Attribute) and func.attr.value in REDUCTIONS and out is None:
            return
        for arg in node.args:
            values = (
                [e.value for e in arg.value.elements]
                if isinstance(arg.value, (cst.List, cst.Tuple))
                else [arg.value]
            )
            for value in values:
                if isinstance(value, cst.Name):
                    self._add(value.value, node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, (cst.Subscript, cst.Attribute)):
            self._root(node.target, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._root(node.target, node)


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] = self.counts.get(node.value, 0) + 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit_read_only(node.value, self)
        return False


def reads_of(provenance: Provenance, frame: Frame, name: str) -> int:
    """How often ``name`` is read in ``frame``'s function (its one binding not counted)."""
    memo = provenance.context.shared(_READS, dict)
    function = frame.function
    if function not in memo:
        collector = _Names()
        visit_read_only(function, collector)
        memo[function] = collector.counts
    return memo[function].get(name, 0) - 1


def _changed_before(provenance: Provenance, frame: Frame, use: cst.Name) -> bool:
    """Whether the function changes ``use``'s name in place where the change can reach this
    read: on an earlier line, on its own line, or in a loop around both. A change after the
    read (the decoder given the lengths whose maximum was read) does not make it stale.
    Session 35 (recall35): before, any change anywhere in the function did."""
    memo = provenance.context.shared(_IN_PLACE, dict)
    function = frame.function
    if function not in memo:
        collector = _InPlace(provenance.context)
        visit_read_only(function, collector)
        memo[function] = collector.changes
    line = provenance.context.position(use).start.line
    return any(first <= line for first in memo[function].get(use.value, ()))

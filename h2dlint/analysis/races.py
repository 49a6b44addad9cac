"""Races that asynchronous copies invite (HTD401, HTD402, and HTD105's fix).

A ``non_blocking=True`` copy returns before it has run: the host may go on, but must not touch
the copy's host memory until the copy has run. Two mistakes follow (measured on an H200:
``../shared/ground-truth/nonblocking_races.py``):

- reading the host result of a device-to-host copy before a sync (HTD401): the host reads what
  was in the memory before (0.0 where 7000.0 was expected);
- writing a pinned buffer that a queued host-to-device copy has not read yet (HTD402): the device
  receives the second write's data.

This module scans one function (or the module) in source order: its host writes to named
buffers (as :func:`h2dlint.analysis.views.function_writes` finds them, with the node written),
the calls that make the host wait for the device (:func:`host_sync`), the names rebound, and
calls into code this module cannot see (which may wait for the device themselves). A *place* is
a statement's source order, the index of the small statement in its line, and the loops around
it.

What synchronises the host, conservatively (anything that may wait counts):

- ``torch.cuda.synchronize()``, ``stream.synchronize()``, ``event.synchronize()``, any call whose
  name says ``synchronize`` or ``sync`` (``self._sync_stream()``);
- ``.wait()`` of anything (a future, a work handle: they may wait for the device); but not
  ``stream.wait_event(e)``/``wait_stream(s)``, which only order the device, never the host;
- ``.item()``, ``.tolist()`` and a blocking ``.cpu()`` or ``.to("cpu")`` of another tensor (on a
  CUDA tensor each waits for the stream).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.aliases import ways_in
from h2dlint.analysis.arguments import first_positional, is_true, keyword
from h2dlint.analysis.names import target_names
from h2dlint.analysis.writes import WriteCollector, buffer_roots, view_root
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    from h2dlint.analysis.frames import Frame
    from h2dlint.analysis.provenance import Provenance
    from h2dlint.imports import ImportTable

# Methods that order only the device: they never make the host wait.
DEVICE_ONLY_WAITS = frozenset({"wait_event", "wait_stream", "record_event", "record"})
# Reading methods that wait for the stream when their tensor is on a device.
READ_SYNCS = frozenset({"item", "tolist"})
HOST_DEVICES = ("cpu", "'cpu'", '"cpu"')
_BUILTINS = frozenset(dir(builtins))
# Module prefixes of calls that never run user code that could wait for the device.
KNOWN_MODULES = ("torch.", "numpy.", "np.", "math.", "itertools.", "functools.", "operator.")


def _string_is_cpu(node: cst.BaseExpression | None) -> bool:
    """``"cpu"``, or ``torch.device("cpu")``."""
    if (
        isinstance(node, cst.Call)
        and (dotted_name(node.func) or "").rpartition(".")[2] == "device"
        and len(node.args) == 1
    ):
        node = node.args[0].value
    return isinstance(node, cst.SimpleString) and node.evaluated_value == "cpu"


def blocking_to_host(call: cst.Call) -> bool:
    """``x.cpu()`` or ``x.to("cpu")`` without ``non_blocking=True``."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in ("cpu", "to"):
        return False
    non_blocking = keyword(call, "non_blocking")
    if non_blocking is not None and is_true(non_blocking.value):
        return False
    if func.attr.value == "cpu":
        return True
    device = keyword(call, "device")
    return _string_is_cpu(device.value if device is not None else first_positional(call))


def host_sync(call: cst.Call, excluded: frozenset[str] = frozenset()) -> bool:
    """Whether ``call`` may make the host wait for the device (see the module's docstring).
    Reads of the buffers in ``excluded`` (by their root) are not counted: they are what a rule
    asks about, not a sync before it."""
    func = call.func
    if isinstance(func, cst.Name):
        name = func.value.lower()
        return "sync" in name
    if not isinstance(func, cst.Attribute):
        return False
    name = func.attr.value
    if name in DEVICE_ONLY_WAITS:
        return False
    if "sync" in name.lower() or name == "wait":
        return True
    if name in READ_SYNCS or blocking_to_host(call):
        return not (excluded and _mentions(func.value, excluded))
    return False


def _mentions(node: cst.CSTNode, names: frozenset[str]) -> bool:
    """Whether ``node`` mentions one of the dotted ``names`` (``y``, ``self.host``)."""
    if isinstance(node, (cst.Name, cst.Attribute)) and dotted_name(node) in names:
        return True
    return any(_mentions(child, names) for child in node.children)


@dataclass(frozen=True, order=True)
class Place:
    """Where a statement is: source order, the small statement's 1-based index in its line (0 for
    a compound statement's header), and the statement orders of the loops around it."""

    statement: int
    small: int
    loops: frozenset[int] = field(compare=False)

    @property
    def key(self) -> tuple[int, int]:
        return (self.statement, self.small)


@dataclass(frozen=True)
class HostWrite:
    """A host write: the buffer's root, the expression written (``buf[:n]``), the node to report
    (the in-place call, or the assignment target), and where it is."""

    root: str
    target: cst.BaseExpression
    node: cst.CSTNode
    place: Place


@dataclass
class FunctionScan:
    """What :func:`scan_function` found in one function."""

    writes: list[HostWrite] = field(default_factory=list)
    syncs: list[Place] = field(default_factory=list)
    # Names (``buf``, ``self.buf``) bound again, and where.
    rebinds: dict[str, list[Place]] = field(default_factory=dict)
    # Calls of code that may itself wait for the device: (place, how it is called).
    opaque: list[tuple[Place, str]] = field(default_factory=list)
    calls: dict[cst.Call, Place] = field(default_factory=dict)
    # Calls in a ``return`` statement: nothing later in the function runs after them.
    returning: set[cst.Call] = field(default_factory=set)

    def syncs_between(self, start: Place, end: Place) -> bool:
        """A sync after ``start`` and at or before ``end`` (by source order)."""
        return any(start.key < sync.key <= end.key for sync in self.syncs)

    def syncs_in_loop(self, loop: int) -> bool:
        return any(loop in sync.loops for sync in self.syncs)

    def syncs_outside(self, start: Place, end: Place) -> bool:
        """A sync before ``start`` or after ``end``: one that runs between two calls when the
        function runs again."""
        return any(sync.key <= start.key or sync.key > end.key for sync in self.syncs)

    def rebound_between(self, names: set[str], start: Place, end: Place) -> bool:
        return any(
            start.key < place.key <= end.key
            for name in names
            for place in self.rebinds.get(name, [])
        )

    def rebound_in_loop(self, names: set[str], loop: int) -> bool:
        return any(loop in place.loops for name in names for place in self.rebinds.get(name, []))

    def rebound(self, names: set[str]) -> bool:
        return any(name in self.rebinds for name in names)

    def opaque_in_loop(self, loop: int) -> str | None:
        return next((call for place, call in self.opaque if loop in place.loops), None)

    def opaque_outside(self, start: Place, end: Place) -> str | None:
        return next(
            (call for place, call in self.opaque if place.key <= start.key or place.key > end.key),
            None,
        )


class _Scan(WriteCollector):
    def __init__(self, root: cst.CSTNode, imports: ImportTable, self_name: str | None) -> None:
        super().__init__(root, imports)
        self.scan = FunctionScan()
        self.self_name = self_name
        self._reporting: cst.CSTNode | None = None
        self._returns = 0

    def place(self) -> Place:
        return Place(max(self.statement, 0), self.small, frozenset(self.loops))

    def _add(self, target: cst.BaseExpression) -> None:
        root = view_root(target)
        if root is not None:
            node = self._reporting if self._reporting is not None else target
            self.scan.writes.append(HostWrite(root, target, node, self.place()))

    def _rebind(self, target: cst.BaseExpression) -> None:
        for name in target_names(target):
            self.scan.rebinds.setdefault(name, []).append(self.place())

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        for target in node.targets:
            self._rebind(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        super().visit_AnnAssign(node)
        if node.value is not None:
            self._rebind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._rebind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._rebind(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._rebind(node.asname.name)

    def visit_Return(self, node: cst.Return) -> None:
        self._returns += 1

    def leave_Return(self, original_node: cst.Return) -> None:
        self._returns -= 1

    def visit_Call(self, node: cst.Call) -> None:
        self._reporting = node
        super().visit_Call(node)
        self._reporting = None
        place = self.place()
        self.scan.calls[node] = place
        if self._returns:
            self.scan.returning.add(node)
        if host_sync(node):
            self.scan.syncs.append(place)
            return
        opaque = self._opaque(node)
        if opaque is not None:
            self.scan.opaque.append((place, opaque))

    def _opaque(self, call: cst.Call) -> str | None:
        """``f(...)`` of a function that is no builtin and not torch's or numpy's, or
        ``self.m(...)``: code that may wait for the device itself."""
        func = call.func
        qualified = self.imports.qualify(func) or ""
        if qualified.startswith(KNOWN_MODULES):
            return None
        if isinstance(func, cst.Name):
            return None if func.value in _BUILTINS else f"{func.value}()"
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and self.self_name is not None
            and func.value.value == self.self_name
        ):
            return f"{self.self_name}.{func.attr.value}()"
        return None


def scan_function(frame: Frame, imports: ImportTable) -> FunctionScan:
    """Scan ``frame``'s function (not its nested functions or classes)."""
    collector = _Scan(frame.function, imports, frame.self_name)
    visit_read_only(frame.function, collector)
    return collector.scan


# -- which part of a buffer an expression is ------------------------------------------------------
WHOLE = "whole"
PREFIX = "prefix"


def _starts_at_zero(piece: cst.BaseSlice) -> bool:
    if not isinstance(piece, cst.Slice):
        return False
    lower = piece.lower
    return lower is None or (isinstance(lower, cst.Integer) and lower.value == "0")


def region(node: cst.BaseExpression) -> str:
    """Which part of its buffer ``node`` is: :data:`WHOLE` (the buffer, or a view of all of it:
    ``buf``, ``buf.numpy()``, ``buf[:]``, ``buf.view(-1)``), :data:`PREFIX` (slices that all start
    at 0: ``buf[:n]``, ``buf[:, :n]``), else the expression's code (``buf[i]``, ``buf[a:b]``)."""
    parts: list[str] = []
    current = node
    while True:
        if isinstance(current, cst.Subscript):
            if all(_starts_at_zero(element.slice) for element in current.slice):
                full = all(
                    isinstance(e.slice, cst.Slice) and e.slice.upper is None for e in current.slice
                )
                parts.append(WHOLE if full else PREFIX)
                current = current.value
                continue
            return cst.Module([]).code_for_node(node)
        if isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute):
            current = current.func.value
            continue
        if isinstance(current, cst.Attribute) and view_root(current) != dotted_name(current):
            current = current.value
            continue
        break
    return PREFIX if PREFIX in parts else WHOLE


def overlap(copied: str, written: str, same_iteration: bool) -> bool:
    """Whether the parts ``copied`` and ``written`` of one buffer may overlap. Two parts named
    by the same code overlap in one pass, not from one loop iteration to the next (``buf[i]``
    moves on); a part and a prefix are taken not to (a ring of rows)."""
    if WHOLE in (copied, written):
        return True
    if copied == PREFIX and written == PREFIX:
        return True
    if PREFIX in (copied, written):
        return False
    return copied == written and same_iteration


# -- a pinned buffer written while a copy from it may be pending (HTD402) -------------------------
NEXT_CALL = "in the next call"
NEXT_ITERATION = "in the next iteration of the loop"
LATER = "later"


@dataclass(frozen=True)
class Reuse:
    """A host write that may reach a buffer before a pending copy has read it: ``when`` it runs
    relative to the copy, and ``unless``: the call that might wait for the device in between
    (None when nothing could: the race is certain)."""

    write: HostWrite
    when: str
    unless: str | None = None


def reuses(
    scan: FunctionScan,
    copy: Place,
    source: cst.BaseExpression,
    roots: set[str],
    aliases: set[str],
    self_name: str | None,
    returns: bool = False,
) -> list[Reuse]:
    """The writes of ``scan`` to the buffer a copy at ``copy`` reads (``source``, known by the
    names ``roots`` and ``aliases``) that may run before the copy has: later in the function
    with no sync between; earlier in a loop around both (the next iteration) with no sync in
    the loop; or, for ``self.<attr>`` buffers, earlier in the method (the next call) with no
    sync after the copy or before the write. A write through a name bound again in between
    writes another buffer (double buffering: ``cur, nxt = nxt, cur``)."""
    copied = region(source)
    found: list[Reuse] = []
    for write in scan.writes:
        if write.root not in roots and write.root not in aliases:
            continue
        own = {write.root} if write.root in roots else set()
        written = region(write.target)
        at = write.place
        if at.key > copy.key:
            if returns and not (at.loops & copy.loops):
                continue  # the copy is returned: what follows it runs in another call
            if scan.syncs_between(copy, at) or scan.rebound_between(own, copy, at):
                continue
            if overlap(copied, written, same_iteration=True):
                found.append(Reuse(write, LATER))
            continue
        common = at.loops & copy.loops
        if common:
            loop = max(common)  # the innermost loop around both
            if scan.syncs_in_loop(loop) or scan.rebound_in_loop(own, loop):
                continue
            if overlap(copied, written, same_iteration=False):
                found.append(Reuse(write, NEXT_ITERATION, scan.opaque_in_loop(loop)))
            continue
        if self_name is None or not write.root.startswith(self_name + "."):
            continue
        if scan.syncs_outside(at, copy) or scan.rebound(own):
            continue
        if overlap(copied, written, same_iteration=False):
            found.append(Reuse(write, NEXT_CALL, scan.opaque_outside(at, copy) or "the caller"))
    return found


def pending_reuses(
    provenance: Provenance, frame: Frame, scan: FunctionScan, call: cst.Call
) -> tuple[cst.BaseExpression, list[Reuse]] | None:
    """For a copy ``call`` from a pinned buffer (made asynchronous or not): its source and the
    host writes that would reach the buffer while it is pending (:func:`reuses`). None when
    ``call`` is no host-to-device copy from pinned memory in ``scan``'s function."""
    place = scan.calls.get(call)
    if place is None:
        return None
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    source = call.args[0].value if func.attr.value == "copy_" and call.args else func.value
    if not provenance.fact(source, frame).where.pinned:
        return None
    roots = buffer_roots(provenance, source, frame)
    aliases = ways_in(provenance, frame, roots).aliases_in(frame) - roots
    returns = call in scan.returning
    return source, reuses(scan, place, source, roots, aliases, frame.self_name, returns)

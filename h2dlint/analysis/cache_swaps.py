"""Per-entry block copies between a host cache and a device cache (HTD101).

A KV cache manager that swaps blocks out to host memory and back often does it one block at a
time, in a loop over the block mapping::

    def _swap(self, src, dst, src_to_dst):
        for i in range(self.num_layers):
            src_k, src_v = src[i]
            dst_k, dst_v = dst[i]
            for s, d in src_to_dst.items():
                dst_k[d].copy_(src_k[s])
                dst_v[d].copy_(src_v[s])

    def swap_in(self, mapping):
        self._swap(self.cpu_cache, self.gpu_cache, mapping)

Each ``copy_`` is one host-to-device copy of one block (and, from pageable memory, one sync);
one ``index_copy_`` of the gathered blocks, or a copy of contiguous runs, does the same work in
a handful of copies. The loop's only work is the copies (recording a CUDA event or stream
around them is bookkeeping, not work); each copies a row of one tensor into a row of another,
both rows taken by the loop's names.

The direction is what makes it a transfer. It is proven in one of two ways: the two tensors'
placements are known where the loop is (a device tensor written from a host one), or the tensors
come from parameters of the loop's function (the parameter itself, or an element of it unpacked
per layer: ``src_k, src_v = src[i]``, or ``for (sk, sv), (dk, dv) in zip(src, dst)``) and some
call of the function passes a host cache for the source and a device cache for the destination,
as one call site pairs them. The other direction (``swap_out``, device to host) is not this
rule's concern, and is no reason to stay silent about the call that copies host to device. A
list of caches is placed by what it holds: ``self.cpu_cache = self.allocate_cpu_cache()`` of a
method that appends ``(key, value)`` tuples of ``torch.empty(..., pin_memory=True)`` to a local
list it returns. Anything not proven stays unknown, and the loop is not reported: a copy between
two device caches (copy-on-write of a block) is no host-to-device transfer.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.argument_flow import arguments
from h2dlint.analysis.arguments import zip_iterables
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.loop_iterables import iterable_excluded
from h2dlint.analysis.loop_transfers import (
    GatheringLoop,
    Transfer,
    called_method,
    calls_in,
    names_in,
    strip_trivial,
)
from h2dlint.analysis.names import target_names
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.returns import returned_values

# Calls on a CUDA event or stream that only order work: no work of the loop's own.
BOOKKEEPING_METHODS = frozenset({"record", "record_stream", "wait_stream", "wait_event"})
# How deep the placement of a list of caches is followed (attribute, call, returned list).
MAX_DEPTH = 6


@dataclass(frozen=True)
class _Origin:
    """Where a cache tensor of the loop comes from: a placement proven where the loop is, or a
    parameter of the loop's function (``element``: an element of it, ``src_k, src_v =
    src[i]``, rather than the parameter itself)."""

    where: Where = Where.UNKNOWN
    parameter: str | None = None
    element: bool = False


def _bookkeeping(statements: list[cst.BaseSmallStatement]) -> list[cst.BaseSmallStatement]:
    """``statements`` without the recording of events and streams (``event.record(stream)``,
    and ``event = self.events[i]`` bound only for it)."""
    kept = [
        s
        for s in statements
        if not (isinstance(s, cst.Expr) and called_method(s.value) in BOOKKEEPING_METHODS)
    ]
    receivers = {
        s.value.func.value.value
        for s in statements
        if isinstance(s, cst.Expr)
        and isinstance(s.value, cst.Call)
        and isinstance(s.value.func, cst.Attribute)
        and isinstance(s.value.func.value, cst.Name)
        and called_method(s.value) in BOOKKEEPING_METHODS
    }
    return [
        s
        for s in kept
        if not (
            isinstance(s, cst.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0].target, cst.Name)
            and s.targets[0].target.value in receivers
            and not calls_in(s.value)
        )
    ]


def _row(node: cst.BaseExpression, loop_names: set[str]) -> cst.Name | cst.Attribute | None:
    """The tensor of ``x[i]`` (``self.x[i]``) indexed only by the loop's names, or None."""
    if not isinstance(node, cst.Subscript) or not isinstance(node.value, (cst.Name, cst.Attribute)):
        return None
    if names_in(node.value) & loop_names or calls_in(node.value):
        return None
    if not all(
        isinstance(e.slice, cst.Index) and names_in(e.slice.value) & loop_names for e in node.slice
    ):
        return None
    return node.value


def _block_copies(
    node: cst.For, provenance: Provenance, frame: Frame
) -> list[tuple[cst.Call, cst.Name | cst.Attribute, cst.Name | cst.Attribute]] | None:
    """The ``dst[d].copy_(src[s])`` of a loop that does nothing else, each with its
    destination and source tensors."""
    if node.orelse is not None or node.asynchronous is not None:
        return None
    body = node.body
    if not isinstance(body, cst.IndentedBlock) or not all(
        isinstance(s, cst.SimpleStatementLine) for s in body.body
    ):
        return None
    statements = [
        small
        for line in body.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
    ]
    loop_names = target_names(node.target)
    found = []
    for small in _bookkeeping(statements):
        if not (isinstance(small, cst.Expr) and called_method(small.value) == "copy_"):
            return None
        call = small.value
        assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
        if len(call.args) != 1 or call.args[0].keyword is not None:
            return None  # ``copy_(x, non_blocking=...)`` is still one copy per block
        destination = _row(call.func.value, loop_names)
        source = _row(strip_trivial(call.args[0].value, provenance, frame), loop_names)
        if destination is None or source is None or destination.deep_equals(source):
            return None
        found.append((call, destination, source))
    return found or None


def host_to_device_blocks(
    node: cst.For, provenance: Provenance, frame: Frame
) -> GatheringLoop | None:
    """The loop ``node`` as a per-item transfer when it copies blocks, one per entry, from a
    host cache into a device cache (see the module's docstring)."""
    copies = _block_copies(node, provenance, frame)
    if copies is None:
        return None
    loop_names = target_names(node.target)
    if iterable_excluded(node.iter, loop_names, provenance, frame, mapping_ok=True):
        return None
    for call, destination, source in copies:
        if _host_to_device(
            _origin(destination, provenance, frame),
            _origin(source, provenance, frame),
            provenance,
            frame,
        ):
            return GatheringLoop(node, Transfer(call, call.args[0].value), node.iter)
    return None


def _origin(node: cst.Name | cst.Attribute, provenance: Provenance, frame: Frame) -> _Origin:
    where = provenance.where(node, frame)
    if where is not Where.UNKNOWN:
        return _Origin(where)
    if not isinstance(node, cst.Name) or not isinstance(frame.function, cst.FunctionDef):
        return _Origin()
    bindings = provenance.bindings(frame)
    if bindings.is_parameter(node):
        return _Origin(parameter=node.value)
    reaching = bindings.reaching_bindings(node)
    if len(reaching) != 1:
        return _Origin()
    whole = _layer_list(node.value, reaching[0].statement)
    if whole is None:
        return _Origin()
    if isinstance(whole, cst.Name) and bindings.is_parameter(whole):
        return _Origin(parameter=whole.value, element=True)
    return _Origin(_list_where(provenance, whole, frame, 0))


def _layer_list(name: str, statement: cst.CSTNode) -> cst.BaseExpression | None:
    """The list whose element ``statement`` binds ``name`` to: ``k, v = caches[i]``, or a loop
    over the list (``for k, v in caches``, ``for (sk, sv), (dk, dv) in zip(src, dst)``)."""
    if isinstance(statement, cst.SimpleStatementLine):
        small = statement.body[0] if len(statement.body) == 1 else None
        value = small.value if isinstance(small, cst.Assign) else None
        if isinstance(value, cst.Subscript) and isinstance(value.value, (cst.Name, cst.Attribute)):
            return value.value
        return None
    if not isinstance(statement, cst.For):
        return None
    target, iterable = statement.target, statement.iter
    zipped = zip_iterables(iterable)
    if (
        zipped is not None
        and isinstance(target, (cst.Tuple, cst.List))
        and len(target.elements) == len(zipped)
    ):
        for element, source in zip(target.elements, zipped, strict=True):
            if name in _bound(element.value) and isinstance(source, (cst.Name, cst.Attribute)):
                return source
        return None
    if name in _bound(target) and isinstance(iterable, (cst.Name, cst.Attribute)):
        return iterable
    return None


def _bound(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _bound(e.value)}
    return set()


def _host_to_device(
    destination: _Origin, source: _Origin, provenance: Provenance, frame: Frame
) -> bool:
    """Whether the copy runs from the host to a device, where the loop is or in one call of
    its function."""
    if destination.parameter is None and source.parameter is None:
        return destination.where is Where.DEVICE and source.where.on_host
    function = frame.function
    assert isinstance(function, cst.FunctionDef)
    calls: list[tuple[Where, Where]] = []
    passed = {
        o.parameter: arguments(provenance, function, o.parameter)
        for o in (destination, source)
        if o.parameter is not None
    }
    if any(p is None for p in passed.values()):
        return False
    count = {len(p or []) for p in passed.values()}
    if len(count) != 1:
        return False
    for i in range(count.pop()):
        sides = []
        for origin in (destination, source):
            if origin.parameter is None:
                sides.append(origin.where)
                continue
            argument = (passed[origin.parameter] or [])[i]
            owner = argument.source
            assert isinstance(owner, Provenance)
            if origin.element:
                sides.append(_list_where(owner, argument.value, argument.frame, 0))
            else:
                sides.append(owner.fact(argument.value, argument.frame).where)
        calls.append((sides[0], sides[1]))
    return any(d is Where.DEVICE and s.on_host for d, s in calls)


def _list_where(provenance: Provenance, seq: cst.BaseExpression, frame: Frame, depth: int) -> Where:
    """Where the tensors of a list of caches are: what ``sequence_where`` proves, or, for a
    list of ``(key, value)`` tuples, what its tuples hold: an attribute by its values, a call
    of the module's function by what it returns, a list bound empty by what is appended."""
    where = provenance.sequence_where(seq, frame)
    if where is not Where.UNKNOWN or depth > MAX_DEPTH:
        return where
    wheres: list[Where] = []
    if isinstance(seq, (cst.Tuple, cst.List)):
        wheres = [
            provenance.fact(e.value, frame).where
            for e in seq.elements
            if isinstance(e, cst.Element)
        ]
        return _all_agree(wheres)
    if isinstance(seq, cst.Attribute):
        for owner, value, value_frame in provenance.attribute_values(seq, frame):
            assert isinstance(owner, Provenance)
            wheres.append(_list_where(owner, value, value_frame, depth + 1))
        return _all_agree(wheres)
    if isinstance(seq, cst.Call):
        found = provenance.callee(seq, frame)
        if found is None:
            return Where.UNKNOWN
        owner, function = found
        inner = owner.index.frame_of(function)
        wheres = [_list_where(owner, v, inner, depth + 1) for v in returned_values(function)]
        return _all_agree(wheres)
    if isinstance(seq, cst.Name):
        for bound in provenance.bindings(frame).reaching(seq):
            if bound is None:
                return Where.UNKNOWN
            if isinstance(bound, cst.List) and not bound.elements:
                appended = provenance.appended(frame, seq.value)
                wheres.extend(_list_where(provenance, v, frame, depth + 1) for v in appended)
            else:
                wheres.append(_list_where(provenance, bound, frame, depth + 1))
        return _all_agree(wheres)
    return Where.UNKNOWN


def _all_agree(wheres: list[Where]) -> Where:
    """DEVICE or the host when every placement says so (pinned or not, unsaid), else UNKNOWN."""
    if not wheres or Where.UNKNOWN in wheres:
        return Where.UNKNOWN
    if all(w is Where.DEVICE for w in wheres):
        return Where.DEVICE
    if all(w.on_host for w in wheres):
        return Where.HOST
    return Where.UNKNOWN

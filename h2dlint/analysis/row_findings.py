"""What a loop reads per row, as one fact that HTD201 (a sync per row) and HTD202 (a sync on a
hot path) share: for a ``for`` loop or a comprehension, the ways it walks rows (the rows it
iterates, each argument of the ``zip`` it iterates, the rows its ``enumerate`` counter
indexes in other tensors, names its body binds to a row) and each distinct row sync HTD201
accepts there (on the device, or rows surely tensors on a hot path), which HTD201 reports at
the read, naming the tensor whose rows it reads (session 43: every read, not only the first,
so that each line to change is reported).

HTD202 leaves to those findings (:mod:`row_deferrals` asks) exactly the syncs they are: the
read, a sync around or inside it, a read on its line (session 44), so that each per-row sync is
reported once. Any other read in the loop (the mask ``attention_mask[batch_idx].bool()``
unpadding the row whose ``.tolist()`` HTD201 reports) HTD202 judges on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import libcst as cst

from h2dlint.analysis.array_frameworks import other_framework_module
from h2dlint.analysis.compiled_kernels import in_compiled_kernel
from h2dlint.analysis.env_switches import may_read_environment, under_switch
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.gloo_groups import gloo_gathered
from h2dlint.analysis.host_data import dataset_module, host_side
from h2dlint.analysis.host_rebinds import read_after_host_rebinding, same_read
from h2dlint.analysis.loop_iterables import bound_tiny
from h2dlint.analysis.loop_positions import counted_loop, counter_loop, item_index_loop
from h2dlint.analysis.loop_transfers import PARAMETER_WORDS
from h2dlint.analysis.name_hints import on_host_by_name
from h2dlint.analysis.names import names_read, target_names
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.row_tensors import (
    hot_rows_of_tensors,
    items_device_read,
    pieces_walk,
    rows_are_tensors,
)
from h2dlint.analysis.row_truths import TRUTH_READS
from h2dlint.analysis.row_writes import host_write
from h2dlint.analysis.sequence_items import declared_item_read
from h2dlint.analysis.sync_basics import SYNC_BUILTINS, RowLoop, RowSync, Walk
from h2dlint.analysis.syncs import (
    INDEX_READS,
    ROW_WRITE,
    reads_row,
    row_loop,
    row_syncs,
    with_derived,
    zipped_loops,
)
from h2dlint.analysis.tensor_kinds import tensor_evidence, tensor_sequence_parameter
from h2dlint.analysis.tensor_wrappers import built_on, reads_view, row_wrapper
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import holds, visit_read_only

HOST_COPIES = ("`.cpu()`", '`.to("cpu")`')
# How HTD201 knows a row sync is one: the rows are on the device; the rows are surely tensors
# (placement unknown); the tensor is surely one and the loop is on a hot path.
DEVICE = "device"
TENSORS = "tensors"
HOT = "hot"

LOOPS = (cst.For, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
Loop = cst.For | cst.BaseComp | cst.DictComp


@dataclass(frozen=True)
class RowFinding:
    """A row sync HTD201 accepts: ``loop`` as judged (a walk of pieces where the walked name
    holds ``torch.split`` pieces), how it knows (:data:`DEVICE`, :data:`TENSORS`,
    :data:`HOT`), why the loop is hot (for :data:`HOT`), and whether ``loop`` is the
    loop's own row walk (not a ``zip`` argument's nor its counter's)."""

    sync: RowSync
    loop: RowLoop
    kind: str
    reason: str | None = None
    own_walk: bool = False


@dataclass(frozen=True)
class LoopRows:
    """What one loop reads per row: HTD201's findings (each distinct row sync it accepts, in
    the order it judges them: the first walk's first) and the walks it judged."""

    findings: tuple[RowFinding, ...]
    walks: tuple[RowLoop, ...]


_LOOP_ROWS: SharedKey[LoopRows] = SharedKey("loop rows")


def loop_rows(context: FileContext, node: Loop) -> LoopRows:
    """:class:`LoopRows` of ``node``, a loop being visited (its ancestors are
    ``context.ancestors``); computed once per loop."""
    return context.shared(_LOOP_ROWS, lambda: _judge_loop(context, node), node)


def comprehension_parts(node: cst.BaseComp | cst.DictComp) -> list[cst.CSTNode]:
    """What a comprehension computes per item: its element (a dict's key and value)."""
    if isinstance(node, cst.DictComp):
        return [node.key, node.value]
    assert isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp))
    return [node.elt]


def _walks(node: Loop) -> Iterator[tuple[RowLoop, list[cst.CSTNode], bool, bool]]:
    """The ways ``node`` walks rows, in the order HTD201 judges them: each walk with the parts
    it covers, whether it is the loop's own row walk, and whether rows of tensors not known to
    be tensors count (not for an ``enumerate`` counter, which indexes lists as often)."""
    if isinstance(node, cst.For):
        iterable, target = node.iter, node.target
        parts: list[cst.CSTNode] = [node.body]
        zip_parts = parts
    else:
        for_in = node.for_in
        iterable, target = for_in.iter, for_in.target
        zip_parts = [*comprehension_parts(node), *for_in.ifs]
        parts = zip_parts + ([for_in.inner_for_in] if for_in.inner_for_in is not None else [])
    loop = row_loop(iterable, target)
    items = item_index_loop(iterable, target)
    if loop is not None and loop.walk is Walk.LIST:
        # One transfer, then Python rows (a comprehension's round trip is HTD201's own); the
        # rows of other tensors indexed by them are read one at a time.
        if items is not None:
            yield items, parts, False, False
        return
    if loop is not None:
        yield loop, parts, True, True
    else:
        for zipped in zipped_loops(iterable, target):
            yield zipped, zip_parts, False, True
    counted = counter_loop(iterable, target)
    if counted is not None and (loop is not None or isinstance(node, cst.For)):
        yield counted, parts, False, False
    kept = counted_loop(node) if isinstance(node, cst.For) else None
    if kept is not None:
        yield kept, parts, False, False
    if items is not None:
        yield items, parts, False, False
    flattened = _flattened(node)
    if flattened is not None:
        yield flattened


def _flattened(node: Loop) -> tuple[RowLoop, list[cst.CSTNode], bool, bool] | None:
    """``[b.tolist() for bs in seq for b in bs]``: a comprehension that flattens ``seq`` walks
    the items of its items one by one, a walk of ``seq`` (session 36: OpenNMT-py's n-best
    hypotheses, ``best.tolist()`` per hypothesis)."""
    if isinstance(node, cst.For):
        return None
    outer = node.for_in
    inner = outer.inner_for_in
    if (
        inner is None
        or inner.inner_for_in is not None
        or not isinstance(outer.iter, (cst.Name, cst.Attribute))
        or not isinstance(outer.target, cst.Name)
        or not isinstance(inner.iter, cst.Name)
        or inner.iter.value != outer.target.value
    ):
        return None
    names = frozenset(target_names(inner.target))
    loop = RowLoop(Walk.ROWS, outer.iter, names, inner.target, items=True)
    return loop, [*comprehension_parts(node), *inner.ifs], False, True


def _judge_loop(context: FileContext, node: Loop) -> LoopRows:
    findings: list[RowFinding] = []
    seen: list[RowSync] = []
    walks: list[RowLoop] = []
    # A loop in a branch that runs only with a diagnostic switch on (``if _NAN_DEBUG:``)
    # reads rows while someone debugs, not per step of a deployment.
    switched = (
        may_read_environment(context.source)
        and under_switch([*context.ancestors, node], context.module)
    ) or in_compiled_kernel(context.ancestors)  # a numba/triton kernel reads on the device
    for loop, parts, own, guessed in _walks(node):
        walks.append(with_derived(parts, loop))
        if switched:
            continue
        for found in _accepted(context, node, loop, parts, guessed):
            # against every read seen, kept or not: ``float(r[1].item() - s)`` beside
            # ``r[0].item()`` is the second `.item()`, one finding with the first
            if not any(same_read(context, found.sync, other) for other in seen):
                findings.append(replace(found, own_walk=own))
            seen.append(found.sync)
    return LoopRows(tuple(findings), tuple(walks))


def _accepted(
    context: FileContext,
    node: cst.CSTNode,
    loop: RowLoop,
    parts: list[cst.CSTNode],
    guessed: bool,
) -> Iterator[RowFinding]:
    """The row syncs of ``loop`` in ``parts`` that HTD201 reports, first the one it names. Not
    ``guessed``: only rows of tensors known to be tensors."""
    syncs = sorted(row_syncs(parts, loop), key=_named_first)
    if not syncs:
        return
    provenance = Provenance.of(context)
    frame = provenance.current_frame()
    if isinstance(loop.tensor, cst.Name) and bound_tiny(loop.tensor, provenance, frame):
        return  # `vs = [v.to(dev) for v in (a, b, c)]`: as many items as the display has
    if loop.tensor is not None and gloo_gathered(provenance, loop.tensor, frame):
        return  # the outputs of a gather on a gloo group: host tensors
    pieces = pieces_walk(provenance, loop, frame)
    if pieces is not loop:  # `for c in chunks` of `chunks = torch.split(x, n)`: x's pieces
        loop = pieces
        syncs = sorted(row_syncs(parts, loop), key=_named_first)
    # A name bound to a numpy array built from a row is host data, not a row of the tensor.
    derived = with_derived(parts, loop, lambda value: provenance.is_numpy_array(value, frame))
    while_tests = _while_tests(parts)
    for sync in syncs:
        if any(holds(test, sync.call) for test in while_tests):
            continue  # the inner ``while`` loop's own finding: one sync per iteration of it
        # ``for d in boxes`` of a tensor wrapper object: ``d.cls`` is a slice of the row.
        wrapper = row_wrapper(provenance, loop, sync.tensor, frame)
        viewed = wrapper is not None and reads_view(sync.call, derived, wrapper, parts)
        if (
            isinstance(sync.call, cst.BaseExpression)
            and not viewed
            and not reads_row(sync.call, derived, objects=True)
        ):
            continue  # ``hyp.yseq.tolist()`` of ``for hyp in nbest_hyps``: objects, no rows
        where = provenance.where(sync.tensor, frame)
        if read_after_host_rebinding(context, parts, sync, derived):
            continue  # ``h = h.item()`` earlier in the loop: ``emb[:h]`` reads a Python int
        if loop.kept_counter and sync.what != ROW_WRITE:
            continue  # ``image_grid_thw[image_index].item()``: HTD202's read, as before
        if sync.what == ROW_WRITE and not host_write(provenance, sync, frame):
            continue  # a row written into a device tensor, a list or a dict: nothing read
        if where.on_host or (sync.what in HOST_COPIES and _weights_walked(loop)):
            continue  # `[w.cpu() for w in new_weights]`: a checkpoint's or a merge's copies
        if where is Where.UNKNOWN and _items_on_device(provenance, sync, loop, frame):
            yield RowFinding(sync, replace(loop, items=True), DEVICE)
            continue
        if sync.what in HOST_COPIES and called_output(provenance, sync.call, frame):
            continue  # `out = module(piece)`, `out.cpu()`: the call's output leaving
        if sync.what in INDEX_READS and host_side(context):
            continue  # sizes in a processor's or tokenizer's loop: host data
        if where is Where.DEVICE:
            yield RowFinding(sync, loop, DEVICE)
            continue
        if viewed:
            # Rows of a tensor wrapper (:mod:`tensor_wrappers`): where the objects walked were
            # made here, the tensor they were made of says the placement; else unknown.
            built = built_on(provenance, sync.tensor, frame)
            if not built.on_host:
                yield RowFinding(sync, loop, DEVICE if built is Where.DEVICE else TENSORS)
            continue
        if dataset_module(context) or other_framework_module(context):
            continue  # a dataset's samples, or another framework's arrays: no device proven
        if sync.what not in HOST_COPIES and declared_item_read(
            provenance, node, loop, sync, parts, frame
        ):  # the items of a `List[torch.Tensor]` parameter (analysis/sequence_items.py)
            yield RowFinding(sync, replace(loop, items=True), TENSORS)
            continue
        module = context.module
        if (
            sync.what not in TRUTH_READS  # rows of lists and arrays are truth values too
            and rows_are_tensors(provenance, module, sync.tensor, loop, frame)
            and not on_host_by_name(sync.tensor, frame)
        ):
            yield RowFinding(sync, loop, TENSORS)
            continue
        # Surely a tensor (a field declared as one, a `torch.*` result, a name bound only to
        # such values): its rows are tensors, whatever the loop counts with.
        known = (
            tensor_evidence(provenance, sync.tensor, frame) is not None
            or _array_read_of_row(sync, loop)
            or (
                isinstance(frame.function, cst.FunctionDef)
                and items_device_read(module, frame.function, sync.tensor)
            )
        )
        if not known and (
            not guessed
            or sync.what in INDEX_READS | TRUTH_READS  # rows of ints, bools do that too
            or (
                sync.what in HOST_COPIES
                and not (
                    isinstance(sync.tensor, cst.Name)
                    and tensor_sequence_parameter(provenance, sync.tensor, frame)
                )
            )
        ):
            continue  # copying whole items of unknown kind: often offloading, by design
        hot = hot_rows_of_tensors(
            context, provenance, sync.tensor, loop, parts, frame, known=known, node=node
        )
        if hot is not None:
            yield RowFinding(sync, loop, HOT, hot)


def _named_first(sync: RowSync) -> tuple[bool, bool]:
    """A method sync (`.item()`) names the read better than the `int()` around it; a row's
    truth value comes last, so that an explicit read of the row is the loop's first finding
    (the one a comprehension's fix is attached to)."""
    return not sync.what.startswith("`."), sync.what in TRUTH_READS


class _WhileTests(cst.CSTVisitor):
    """The tests of the ``while`` loops in a block (not in nested functions)."""

    def __init__(self) -> None:
        self.tests: list[cst.BaseExpression] = []

    def visit_While(self, node: cst.While) -> None:
        self.tests.append(node.test)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def _while_tests(parts: list[cst.CSTNode]) -> list[cst.BaseExpression]:
    finder = _WhileTests()
    for part in parts:
        visit_read_only(part, finder)
    return finder.tests


def _weights_walked(loop: RowLoop) -> bool:
    """Whether ``loop`` walks a sequence named for a layer's parameters (``new_weights``,
    ``biases``): whole weights copied one by one to the host are saved or merged, by design."""
    tensor = loop.tensor
    return isinstance(tensor, cst.Name) and (
        tensor.value.lower().rsplit("_", 1)[-1] in PARAMETER_WORDS
    )


def _items_on_device(provenance: Provenance, sync: RowSync, loop: RowLoop, frame: Frame) -> bool:
    """Whether ``loop`` walks a sequence whose item, as the sync reads it, is proven on the
    device (``[o.cpu() for o in outs]`` of ``outs = [t.to(dev) for t in xs]``)."""
    if loop.walk is not Walk.ROWS or loop.pieces or not isinstance(loop.tensor, cst.Name):
        return False
    if gloo_gathered(provenance, loop.tensor, frame, maybe=True):
        return False  # gathered on a group that may be a gloo one: host tensors then
    rows = [name for name in names_read(sync.call) if name.value in loop.names]
    bindings = provenance.bindings(frame)
    return any(
        # the item itself, as the loop bound it (not rebound in the body: `o = o.to(dev)`
        # moves each item, and what the list holds is not known)
        all(value is None for value in bindings.reaching(name))
        and provenance.where(name, frame) is Where.DEVICE
        for name in rows
    )


# Reductions of a row that ``.item()``/``.tolist()`` reads (``row.prod().item()``): methods of
# arrays, as ``.item()`` is.
_ROW_REDUCTIONS = frozenset({"prod", "sum", "max", "min", "mean", "any", "all", "argmax"})


def _array_read_of_row(sync: RowSync, loop: RowLoop) -> bool:
    """Whether ``sync`` is ``.item()``/``.tolist()`` of a row itself (``t[i].item()``) or of
    a reduction of a row (``t[i].prod().item()``, ``for row in t: row.prod().item()``, a
    grid's patch count): only arrays have them, so the rows are tensors (or numpy values)
    whatever ``t`` is."""
    call = sync.call
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
        return False
    if call.func.attr.value not in ("item", "tolist"):
        return False
    row = call.func.value
    reduced = (
        isinstance(row, cst.Call)
        and isinstance(row.func, cst.Attribute)
        and row.func.attr.value in _ROW_REDUCTIONS
    )
    if reduced:
        assert isinstance(row, cst.Call) and isinstance(row.func, cst.Attribute)
        row = row.func.value
    if isinstance(row, cst.Subscript) and row.value.deep_equals(sync.tensor):
        return True
    # A walked item read bare (``step_t.item()``) may be a 0-d tensor of a list kept on the
    # host on purpose (an optimizer's step counts): only a reduced row says "rows".
    return (
        reduced
        and loop.tensor is not None
        and isinstance(row, cst.Name)
        and row.value in loop.names
        and loop.tensor.deep_equals(sync.tensor)
    )


def called_output(provenance: Provenance, read: cst.BaseExpression, frame: Frame) -> bool:
    """Whether the copy ``read`` (``out.cpu()``) copies a name bound in the loop only to what
    a module or helper returns for the row (``out = module(piece)``, then ``out = out[0]``):
    copying it to the host offloads the work's output (chunked calibration, offloaded
    activations), which must leave; the per-row call is the loop's work, not a read of the
    row."""
    if isinstance(read, cst.Call) and isinstance(read.func, cst.Attribute):
        tensor: cst.BaseExpression = read.func.value
    else:
        return False
    if not isinstance(tensor, cst.Name):
        return False
    calls = 0
    for value in provenance.bindings(frame).reaching(tensor):
        if isinstance(value, cst.Subscript) and value.value.deep_equals(tensor):
            continue
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if (provenance.qualify(func) or "").startswith(("torch.", "numpy.", "np.")):
            return False
        if not (
            (isinstance(func, cst.Name) and func.value not in SYNC_BUILTINS)
            or (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == frame.self_name
            )
        ):
            return False
        calls += 1
    return calls > 0

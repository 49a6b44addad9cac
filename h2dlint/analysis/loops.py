"""Loops and comprehensions whose only job is to move the items of a collection to a device, one
copy per item (HTD101).

A *transfer* is ``x.to(<device>)``, ``x.cuda()`` or ``dst.copy_(x)`` into device memory. A
*per-item transfer* moves an item of the loop: its tensor is the loop variable (or an element or
attribute of it, or a container indexed by it, or a host tensor made of it by ``torch.tensor``,
``as_tensor``, ``from_numpy``), possibly with trivial wrapping (``.float()``, ``.contiguous()``,
``.unsqueeze(0)``, ``.data``, ``.to(dtype)``). A loop or comprehension is a *gathering loop*
when all it does per iteration is such a transfer whose result is collected: the element of a
comprehension, or in a ``for`` body (or a ``while`` body taking ``x = queue.pop()``) only
statements that store the moved item (``out.append(...)``, ``xs[i] = ...``, ``batch[k] = ...``,
``item.attr = ...``, a ``copy_`` into a device buffer). A guard that only keeps the items'
tensors (``if isinstance(item.feature, torch.Tensor):`` without ``else``, ``if x is not None:``,
``if not isinstance(x, torch.Tensor): continue``) is seen through: it filters, it does not
dispatch. :func:`mover_parameters` says which parameters of a function it moves that way.

Conservative by design (a false positive is as bad as a miss). Not gathering loops:

- loops that do anything else per iteration (model calls, arithmetic, I/O, branches);
- loops whose copy target depends on the loop variable (``x.to(devices[i])``: a multi-GPU
  scatter) or is the device of another tensor (``h.to(other.device)``: usually aligning tensors
  that already live on accelerators, not a host-to-device copy);
- loops over a literal tuple or list or ``range(<small literal>)``: the item count is tiny;
- loops over a model's parameters, buffers, modules or state dict, or over names that say so
  (``params``, ``layers``, ``model``...): one-time setup moves of things that cannot be batched;
- type-dispatching loops (``isinstance`` with an ``else`` or a test of another type, in the
  element, or around the loop): generic movers of mixed containers, which one batched copy
  cannot replace;
- a mapping's values (``d.items()``, ``d.values()``, ``for k in d: d[k]``): named fields of
  different dtypes and shapes;
- storage swaps (``p.data = ...``) and ``self``'s collection moved in place
  (``self.freqs = [f.to(d) for f in self.freqs]``): one-time relocations of state;
- copies to an offload device (the host, see ``targets.by_name``), and collections named as
  activations (``hidden_states``, ``latents``, ``logits``), which already live on an accelerator;
- ``copy_`` into the loop's own items (distinct existing tensors) and row segments of one
  buffer (``gpu[i, :n].copy_(cpu[i, :n])``, the fix for a strided copy);
- items the analysis proves already on a device, or tensors of a list made on one, and the
  pieces of one tensor (``x.split(1)``) not proven on the host;
- few-byte constants: ``torch.tensor(i)`` of a ``range`` index, ``torch.tensor([step])``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.bindings import COMPREHENSIONS
from h2dlint.analysis.copies import non_blocking_to_unnamed_device
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import (
    SPLITTING_METHODS,
    Provenance,
    first_positional,
    host_named,
    is_true,
    keyword,
)
from h2dlint.analysis.targets import Target, by_name, name_words
from h2dlint.engine import ReadOnlyVisitor, visit_read_only

Comprehension = cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp

# Methods that only convert or reshape an item on the way to (or from) the device.
TRIVIAL_METHODS = frozenset(
    {
        "float",
        "half",
        "double",
        "bfloat16",
        "long",
        "int",
        "short",
        "bool",
        "byte",
        "contiguous",
        "detach",
        "squeeze",
        "unsqueeze",
        "view",
        "reshape",
        "flatten",
        "type",
    }
)
# Methods listing a model's state: loops over them are one-time setup moves.
MODEL_STATE_METHODS = frozenset(
    {
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "modules",
        "named_modules",
        "children",
        "named_children",
        "state_dict",
        "optimizer_state",
    }
)
# Words in an iterable's or a loop variable's name that say the items are model state or
# modules, not data tensors.
MODEL_WORDS = (
    "param",
    "module",
    "model",
    "layer",
    "state_dict",
    "statedict",
    "weight",
    "buffer",
    "optim",
    "ckpt",
    "checkpoint",
    "network",
    "expert",
    "submod",
)
# Words in a collection's name that say its items are model activations, made on the device
# (``.to(device)`` of them aligns devices in model-parallel code; it copies nothing from the host).
ACTIVATION_WORDS = ("latent", "hidden", "logit", "activation", "grad")
# Words in a collection's name that say it holds one entry per metric or statistic: a handful
# of values of different dtypes and shapes, not a batch of like items.
KIND_WORDS = frozenset({"metric", "metrics", "stat", "stats", "statistics"})
# Methods that iterate a mapping: its values are named fields of different dtypes and shapes.
MAPPING_METHODS = frozenset({"items", "values", "keys"})
# Methods that put an item into a collection.
STORE_METHODS = frozenset({"append", "appendleft", "add", "insert", "put", "put_nowait"})
# Literal ``range(n)`` bounds at or below this count as a provably tiny loop.
TINY = 8
# Calls that make a host tensor from an item's data: ``[torch.tensor(r).cuda() for r in rows]``
# copies each row on its own just as ``[r.cuda() for r in rows]`` does.
ITEM_CONVERTERS = frozenset(
    {
        "torch.tensor",
        "torch.as_tensor",
        "torch.asarray",
        "torch.from_numpy",
        "torch.Tensor",
        "torch.LongTensor",
        "torch.IntTensor",
        "torch.FloatTensor",
    }
)
# Calls that take one item at a time off a collection in a ``while`` loop.
TAKING_METHODS = frozenset({"pop", "popleft", "get", "get_nowait"})


@dataclass(frozen=True)
class Transfer:
    """One host-to-device copy: the call doing it and the tensor it moves."""

    call: cst.Call
    moved: cst.BaseExpression


@dataclass(frozen=True)
class GatheringLoop:
    """A loop or comprehension that moves each item to the device in its own copy."""

    node: cst.For | cst.While | Comprehension
    transfer: Transfer
    iterable: cst.BaseExpression


# -- names ------------------------------------------------------------------------------------
def target_names(target: cst.BaseExpression) -> set[str]:
    """The names a ``for`` target binds."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for element in target.elements for n in target_names(element.value)}
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return set()


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.calls: list[cst.Call] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit_read_only(node.value, self)  # an attribute's own name is not a variable
        return False


def names_in(node: cst.CSTNode) -> set[str]:
    collector = _Names()
    visit_read_only(node, collector)
    return collector.names


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    collector = _Names()
    visit_read_only(node, collector)
    return collector.calls


def mentions_isinstance(node: cst.CSTNode) -> bool:
    return any(
        (isinstance(call.func, cst.Name) and call.func.value in ("isinstance", "is_tensor"))
        or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "is_tensor")
        for call in calls_in(node)
    )


# -- transfers --------------------------------------------------------------------------------
def _method(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value
    return None


def strip_trivial(
    node: cst.BaseExpression, provenance: Provenance, frame: Frame
) -> cst.BaseExpression:
    """``node`` without trivial conversions around it (``.float()``, ``.to(torch.half)``)."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        method = node.func.attr.value
        if method not in TRIVIAL_METHODS and not (
            method == "to" and provenance.to_target(node, frame) is Target.DTYPE
        ):
            break
        node = node.func.value
    return node


def _device_argument(call: cst.Call) -> cst.BaseExpression | None:
    device = keyword(call, "device")
    if device is not None:
        return device.value
    return first_positional(call)


def _aligns_to_tensor(
    device: cst.BaseExpression, provenance: Provenance | None = None, frame: Frame | None = None
) -> bool:
    """``<tensor>.device``: the device of some other tensor (not ``self.device``), also through
    a local name bound only to the device of a named tensor or an element of one
    (``first = norms[0].device``; not ``next(model.parameters()).device``, a model's device,
    where host data is sent)."""
    if isinstance(device, cst.Name) and provenance is not None and frame is not None:
        values = provenance.bindings(frame).of(device.value)
        return bool(values) and all(
            isinstance(value, cst.Attribute)
            and isinstance(value.value, (cst.Name, cst.Subscript))
            and not calls_in(value.value)
            and _aligns_to_tensor(value)
            and not _model_named(_root(value) or "")
            for value in values
        )
    if not (isinstance(device, cst.Attribute) and device.attr.value == "device"):
        return False
    base = device.value
    return not (isinstance(base, cst.Name) and base.value in ("self", "cls"))


def _to_device(node: cst.Call, provenance: Provenance, frame: Frame) -> bool:
    """``x.to(<device>)``: named a device, or an unnamed target of a non-blocking copy."""
    if provenance.to_target(node, frame) is Target.DEVICE:
        return True
    non_blocking = keyword(node, "non_blocking")
    return (
        non_blocking is not None
        and is_true(non_blocking.value)
        and non_blocking_to_unnamed_device(provenance, node, frame)
    )


def converted_item(
    node: cst.BaseExpression, loop_names: set[str], provenance: Provenance
) -> cst.BaseExpression | None:
    """The item data ``torch.tensor(r)`` (``as_tensor``, ``from_numpy``...) makes a host tensor
    of, when it is a loop item that may be large; ``None`` for a few-byte constant (a number,
    ``torch.tensor([step])``, ``torch.tensor(i)`` of a ``range`` index: nothing to batch)."""
    if not isinstance(node, cst.Call) or provenance.qualify(node.func) not in ITEM_CONVERTERS:
        return None
    if keyword(node, "device") is not None:
        return None
    data = first_positional(node)
    if data is None or _small_constant(data):
        return None
    return data if rooted_in(data, loop_names) else None


def _small_constant(node: cst.BaseExpression) -> bool:
    """A number or a short display of numbers and names (``[step]``, ``(start, end)``)."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, (cst.List, cst.Tuple)):
        return len(node.elements) <= TINY and all(
            isinstance(e, cst.Element)
            and isinstance(e.value, (cst.Integer, cst.Float, cst.Name, cst.Attribute))
            for e in node.elements
        )
    return False


def rooted_in(node: cst.BaseExpression, loop_names: set[str]) -> bool:
    """Whether ``node`` is an item of the loop: a loop variable, an element or attribute of one,
    or a container indexed by one (``batch[k]``)."""
    while True:
        if isinstance(node, cst.Name):
            return node.value in loop_names
        if isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Subscript):
            if any(
                names_in(element.slice) & loop_names
                for element in node.slice
                if isinstance(element.slice, cst.Index)
            ):
                base = node.value
                # container[k] (or self.container[k]) with k a loop variable
                return not calls_in(base)
            node = node.value
        else:
            return False


def row_segment(node: cst.BaseExpression, loop_names: set[str]) -> bool:
    """``buf[i, :n]``: part of row ``i`` of one tensor. The rows together are a strided region,
    which one copy would stage as pageable memory: copying row by row is the fix for that (see
    HTD103), not a per-item transfer."""
    if not isinstance(node, cst.Subscript) or len(node.slice) < 2:
        return False
    indexed = any(
        isinstance(e.slice, cst.Index) and names_in(e.slice) & loop_names for e in node.slice
    )
    partial = any(
        isinstance(e.slice, cst.Slice)
        and not (e.slice.lower is None and e.slice.upper is None and e.slice.step is None)
        for e in node.slice
    )
    return indexed and partial


def item_transfer(
    node: cst.BaseExpression,
    loop_names: set[str],
    provenance: Provenance,
    frame: Frame,
    indices: frozenset[str] = frozenset(),
) -> Transfer | None:
    """The host-to-device copy of a loop item that ``node`` is, trivial wrapping aside.
    ``indices`` are the loop names that are integers (a ``range``'s, ``enumerate``'s count)."""
    node = strip_trivial(node, provenance, frame)
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return None
    method = node.func.attr.value
    if method == "to":
        if not _to_device(node, provenance, frame):
            return None
        device = _device_argument(node)
        if (
            device is None
            or names_in(device) & loop_names
            or _aligns_to_tensor(device, provenance, frame)
        ):
            return None
        moved = node.func.value
    elif method == "cuda":
        if any(names_in(arg.value) & loop_names for arg in node.args):
            return None  # .cuda(i): a different device per item
        moved = node.func.value
    elif method == "copy_":
        source = first_positional(node)
        destination = node.func.value
        if source is None or host_named(destination):
            return None
        if _root(destination) in loop_names:
            return None  # into distinct existing tensors: one batched copy cannot replace it
        if provenance.where(destination, frame) is not Where.DEVICE and not _device_named(
            destination
        ):
            return None
        moved = source
    else:
        return None
    moved = strip_trivial(moved, provenance, frame)
    if isinstance(moved, cst.Attribute) and moved.attr.value == "data":
        moved = moved.value
    data = converted_item(moved, loop_names, provenance)
    if data is not None:
        if isinstance(data, cst.Name) and data.value in indices:
            return None  # ``torch.tensor(i)`` of a loop index: a few bytes
        return Transfer(node, moved)
    if not rooted_in(moved, loop_names) or row_segment(moved, loop_names):
        return None
    if provenance.where(moved, frame) is Where.DEVICE:
        return None
    return Transfer(node, moved)


def _device_named(node: cst.BaseExpression) -> bool:
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        if isinstance(node, cst.Attribute) and by_name(node.attr.value) is Target.DEVICE:
            return True
        node = node.value
    return isinstance(node, cst.Name) and by_name(node.value) is Target.DEVICE


def index_names(target: cst.BaseExpression, iterable: cst.BaseExpression) -> frozenset[str]:
    """The names of a loop target that are integers: ``i`` in ``for i in range(n)`` and in
    ``for i, x in enumerate(xs)``."""
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)):
        return frozenset()
    if iterable.func.value == "range" and isinstance(target, cst.Name):
        return frozenset({target.value})
    if (
        iterable.func.value == "enumerate"
        and isinstance(target, (cst.Tuple, cst.List))
        and target.elements
        and isinstance(target.elements[0].value, cst.Name)
    ):
        return frozenset({target.elements[0].value.value})
    return frozenset()


# -- iterables --------------------------------------------------------------------------------
def _small_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and int(node.value, 0) <= TINY


def tiny_iterable(node: cst.BaseExpression) -> bool:
    """A collection whose item count the code shows to be small: a display, ``range(<= 8)``,
    or ``enumerate``/``zip``/``reversed`` of those."""
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return not any(isinstance(e, cst.StarredElement) for e in node.elements)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        name = node.func.value
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if name == "range":
            return bool(args) and _small_literal(args[-1] if len(args) < 3 else args[1])
        if name in ("enumerate", "reversed", "sorted", "list", "tuple") and args:
            return tiny_iterable(args[0])
        if name == "zip" and args:
            return any(tiny_iterable(a) for a in args)
    return False


def _model_named(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in MODEL_WORDS)


def model_state_iterable(node: cst.BaseExpression, loop_names: set[str]) -> bool:
    """A loop over a model's parameters, modules or state dict (or named so)."""
    for call in calls_in(node):
        if _method(call) in MODEL_STATE_METHODS:
            return True
    if any(_model_named(n) for n in loop_names):
        return True
    return _model_named(_last_name(node) or "")


def _last_name(node: cst.BaseExpression) -> str | None:
    """The name an iterable goes by: ``xs``, ``self.items`` -> ``items``, ``d.items()`` -> ``d``,
    ``enumerate(xs)`` -> ``xs``."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Attribute):
            return node.attr.value
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in (
                "items",
                "values",
                "keys",
            ):
                node = node.func.value
            elif isinstance(node.func, cst.Name) and node.args:
                node = node.args[0].value
            else:
                return None
        else:
            return None


def mapping_iterable(node: cst.BaseExpression) -> bool:
    """``d.items()``, ``d.values()``, ``d.keys()`` (also under ``enumerate``/``zip``)."""
    return any(_method(call) in MAPPING_METHODS and not call.args for call in calls_in(node))


def activation_iterable(node: cst.BaseExpression) -> bool:
    name = (_last_name(node) or "").lower()
    return any(word in name for word in ACTIVATION_WORDS)


def per_kind_iterable(node: cst.BaseExpression) -> bool:
    """``metric_results``, ``stats``: one entry per metric or statistic (whole words: not
    ``state``)."""
    return bool(KIND_WORDS & name_words(_last_name(node) or ""))


def keyed_by_own_keys(moved: cst.BaseExpression, iterable: cst.BaseExpression) -> bool:
    """``for k in batch: batch[k]...``: a mapping iterated by its keys."""
    return isinstance(moved, cst.Subscript) and moved.value.deep_equals(iterable)


def iterable_excluded(
    iterable: cst.BaseExpression, loop_names: set[str], provenance: Provenance, frame: Frame
) -> bool:
    if (
        tiny_iterable(iterable)
        or model_state_iterable(iterable, loop_names)
        or mapping_iterable(iterable)
        or activation_iterable(iterable)
        or per_kind_iterable(iterable)
    ):
        return True
    # Rows of a tensor already on the device.
    if provenance.where(iterable, frame) is Where.DEVICE:
        return True
    # Pieces of one tensor (``x.split(1)``, ``x.unbind(0)``): one tensor that is not proven on
    # the host is a model's output or state far more often than host data, and moving pieces
    # of device memory is a gather between devices.
    pieces = _iterated(iterable)
    if (
        isinstance(pieces, cst.Call)
        and _method(pieces) in SPLITTING_METHODS
        and isinstance(pieces.func, cst.Attribute)
        and not provenance.where(pieces.func.value, frame).on_host
    ):
        return True
    # Tensors of a list proven on a device (``norms = [g.norm() for g in grads]`` of device
    # gradients): moving them is a gather between devices.
    sequence = _iterated(iterable)
    return (
        isinstance(sequence, (cst.Name, cst.List, cst.Tuple, cst.ListComp))
        and provenance.sequence_where(sequence, frame) is Where.DEVICE
    )


def _iterated(node: cst.BaseExpression) -> cst.BaseExpression:
    """The collection an iterable goes over: ``xs`` of ``enumerate(xs)``, ``reversed(xs)``."""
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value in ("enumerate", "reversed", "list", "tuple", "sorted")
        and node.args
    ):
        node = node.args[0].value
    return node


# -- comprehensions ---------------------------------------------------------------------------
def _for_clauses(node: Comprehension) -> Iterator[cst.CompFor]:
    clause: cst.CompFor | None = node.for_in
    while clause is not None:
        yield clause
        clause = clause.inner_for_in


def gathering_comprehension(
    node: Comprehension, provenance: Provenance, frame: Frame
) -> GatheringLoop | None:
    """``[x.to(dev) for x in xs]``, ``{k: v.cuda() for k, v in d.items()}``: ``None`` unless the
    element is just a per-item copy to the device."""
    element = node.value if isinstance(node, cst.DictComp) else node.elt
    if not isinstance(element, cst.Call):
        return None  # cheap exit: the element is no call at all
    clauses = list(_for_clauses(node))
    loop_names: set[str] = set()
    indices: frozenset[str] = frozenset()
    for clause in clauses:
        loop_names |= target_names(clause.target)
        indices |= index_names(clause.target, clause.iter)
    for clause in clauses:
        if any(
            mentions_isinstance(condition.test)
            and not tensor_filter(condition.test, loop_names, provenance)
            for condition in clause.ifs
        ):
            return None  # a condition on type that is more than keeping the tensors
        if clause.asynchronous is not None:
            return None
    transfer = item_transfer(element, loop_names, provenance, frame, indices)
    if transfer is None:
        return None
    outer = clauses[0]
    if any(keyed_by_own_keys(transfer.moved, c.iter) for c in clauses):
        return None
    if any(iterable_excluded(c.iter, loop_names, provenance, frame) for c in clauses):
        return None
    return GatheringLoop(node, transfer, outer.iter)


# -- for loops --------------------------------------------------------------------------------
def _small_statements(body: cst.BaseSuite) -> list[cst.BaseSmallStatement] | None:
    """The body's statements, all simple; ``None`` when it holds a compound statement."""
    out: list[cst.BaseSmallStatement] = []
    if isinstance(body, cst.SimpleStatementSuite):
        return list(body.body)
    assert isinstance(body, cst.IndentedBlock)
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            return None
        out.extend(statement.body)
    return out


def _stored_value(small: cst.BaseSmallStatement) -> cst.BaseExpression | None:
    """What a statement puts into a container or an item: ``out.append(v)``, ``xs[i] = v``,
    ``item.attr = v``."""
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        if _method(call) in STORE_METHODS and call.args:
            return call.args[-1].value
        return None
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, (cst.Subscript, cst.Attribute)):
            return small.value
    return None


def _swaps_storage(small: cst.BaseSmallStatement) -> bool:
    """``item.data = ...``: swapping a parameter's or buffer's storage, a state move."""
    return (
        isinstance(small, cst.Assign)
        and isinstance(small.targets[0].target, cst.Attribute)
        and small.targets[0].target.attr.value == "data"
    )


def _root(node: cst.BaseExpression) -> str | None:
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else None


def moves_state_in_place(target: cst.BaseExpression, collection: cst.BaseExpression) -> bool:
    """``self.freqs = [f.to(device) for f in self.freqs]``: an object's stored tensors moved in
    place. After the first call they are on the device and the copies are no-ops; a one-time
    relocation of state, like moving a module."""
    return _root(target) in ("self", "cls") and target.deep_equals(collection)


def tensor_filter(test: cst.BaseExpression, loop_names: set[str], provenance: Provenance) -> bool:
    """``isinstance(item, torch.Tensor)``, ``torch.is_tensor(item)`` or ``item is not None``
    of a loop item (also several ``and``-ed): a guard that keeps a collection's tensors, not a
    dispatch on type (which has branches doing different things per type)."""
    if isinstance(test, cst.BooleanOperation):
        return isinstance(test.operator, cst.And) and all(
            tensor_filter(side, loop_names, provenance) for side in (test.left, test.right)
        )
    if isinstance(test, cst.Comparison):
        return (
            len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.IsNot)
            and isinstance(test.comparisons[0].comparator, cst.Name)
            and test.comparisons[0].comparator.value == "None"
            and rooted_in(test.left, loop_names)
        )
    if not isinstance(test, cst.Call):
        return False
    args = [a.value for a in test.args if a.keyword is None and not a.star]
    if provenance.qualify(test.func) == "torch.is_tensor":
        return len(args) == 1 and rooted_in(args[0], loop_names)
    return (
        isinstance(test.func, cst.Name)
        and test.func.value == "isinstance"
        and len(args) == 2
        and rooted_in(args[0], loop_names)
        and provenance.qualify(args[1]) == "torch.Tensor"
    )


def _skips_non_tensors(
    statement: cst.BaseStatement, loop_names: set[str], provenance: Provenance
) -> bool:
    """``if not isinstance(item, torch.Tensor): continue``."""
    if not (isinstance(statement, cst.If) and statement.orelse is None):
        return False
    test = statement.test
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    body = _small_statements(statement.body)
    return (
        body is not None
        and len(body) == 1
        and isinstance(body[0], cst.Continue)
        and tensor_filter(test.expression, loop_names, provenance)
    )


def loop_statements(
    body: cst.BaseSuite, loop_names: set[str], provenance: Provenance
) -> list[cst.BaseSmallStatement] | None:
    """The simple statements a loop runs per item; ``None`` when it holds a compound statement.
    A filter that keeps the items' tensors (:func:`tensor_filter`) is seen through: an ``if``
    filter without ``else`` stands for its body (``if isinstance(item.a, torch.Tensor): item.a
    = item.a.to(dev)``, one such per field), and a leading ``if not isinstance(item,
    torch.Tensor): continue`` is dropped."""
    statements = _small_statements(body)
    if statements is not None or not isinstance(body, cst.IndentedBlock):
        return statements
    members = list(body.body)
    if members and _skips_non_tensors(members[0], loop_names, provenance):
        members = members[1:]
    out: list[cst.BaseSmallStatement] = []
    for member in members:
        if isinstance(member, cst.SimpleStatementLine):
            out.extend(member.body)
            continue
        if not (
            isinstance(member, cst.If)
            and member.orelse is None
            and tensor_filter(member.test, loop_names, provenance)
        ):
            return None
        filtered = _small_statements(member.body)
        if filtered is None:
            return None
        out.extend(filtered)
    return out


def _gathering_transfers(
    statements: list[cst.BaseSmallStatement],
    loop_names: set[str],
    provenance: Provenance,
    frame: Frame,
    indices: frozenset[str] = frozenset(),
    control: frozenset[cst.BaseSmallStatement] = frozenset(),
) -> list[Transfer] | None:
    """The per-item transfers of a loop body that only copies items to the device and stores
    them (``control``: statements that drive a ``while`` loop, taken as they are), or None."""
    temporaries: dict[str, Transfer] = {}
    stored: set[str] = set()
    transfers: list[Transfer] = []
    for small in statements:
        if small in control:
            continue
        if isinstance(small, cst.Pass) or (
            isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)
        ):
            continue
        if isinstance(small, cst.Expr) and _method(small.value) == "copy_":
            transfer = item_transfer(small.value, loop_names, provenance, frame, indices)
            if transfer is None:
                return None
            transfers.append(transfer)
            continue
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            # ``y = x.to(dev)``, stored by a later statement
            name = small.targets[0].target.value
            transfer = item_transfer(small.value, loop_names, provenance, frame, indices)
            if transfer is None or name in loop_names:
                return None
            temporaries[name] = transfer
            continue
        value = _stored_value(small)
        if value is None or _swaps_storage(small):
            return None
        value = strip_trivial(value, provenance, frame)
        if isinstance(value, cst.Name) and value.value in temporaries:
            stored.add(value.value)
            transfers.append(temporaries[value.value])
            continue
        transfer = item_transfer(value, loop_names, provenance, frame, indices)
        if transfer is None:
            return None
        if isinstance(small, cst.Assign) and moves_state_in_place(
            small.targets[0].target, transfer.moved
        ):
            return None
        transfers.append(transfer)
    if not transfers or set(temporaries) - stored:
        return None
    return transfers


def gathering_for(node: cst.For, provenance: Provenance, frame: Frame) -> GatheringLoop | None:
    """A ``for`` loop whose body only copies items to the device and stores them."""
    if node.orelse is not None or node.asynchronous is not None:
        return None
    loop_names = target_names(node.target)
    statements = loop_statements(node.body, loop_names, provenance)
    if not statements:
        return None
    indices = index_names(node.target, node.iter)
    transfers = _gathering_transfers(statements, loop_names, provenance, frame, indices)
    if transfers is None:
        return None
    if any(keyed_by_own_keys(t.moved, node.iter) for t in transfers):
        return None
    if iterable_excluded(node.iter, loop_names, provenance, frame):
        return None
    return GatheringLoop(node, transfers[0], node.iter)


def _taken(small: cst.BaseSmallStatement) -> tuple[str, cst.BaseExpression] | None:
    """``item = queue.pop()`` (``popleft``, ``get``; ``next(it)``): the name and the
    collection an item is taken from."""
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.Call)
    ):
        return None
    call = small.value
    name = small.targets[0].target.value
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in TAKING_METHODS:
        return name, call.func.value
    if isinstance(call.func, cst.Name) and call.func.value == "next" and call.args:
        return name, call.args[0].value
    return None


def gathering_while(node: cst.While, provenance: Provenance, frame: Frame) -> GatheringLoop | None:
    """A ``while`` loop whose body takes items one at a time off a collection
    (``x = queue.pop()``, ``popleft``, ``get``, ``next(it)``), copies each to the device and
    stores it. (A counter indexing ``xs[i]`` is not recognised: the candidate filter, which
    knows ``for`` variables and names bound to calls, could not see it.)"""
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    statements = _small_statements(node.body)
    if not statements:
        return None
    taken = {t[0]: t[1] for t in map(_taken, statements) if t is not None}
    if len(taken) != 1:
        return None
    control = frozenset(s for s in statements if _taken(s) is not None)
    loop_names = set(taken)
    transfers = _gathering_transfers(statements, loop_names, provenance, frame, control=control)
    if transfers is None:
        return None
    (iterable,) = taken.values()
    if iterable_excluded(iterable, loop_names, provenance, frame):
        return None
    return GatheringLoop(node, transfers[0], iterable)


def _comprehension_in(node: cst.BaseExpression) -> Comprehension | None:
    """A comprehension, or one passed to ``list``/``tuple``/``dict``."""
    if isinstance(node, COMPREHENSIONS):
        return node
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value in ("list", "tuple", "dict", "set")
        and len(node.args) == 1
        and isinstance(node.args[0].value, COMPREHENSIONS)
    ):
        return node.args[0].value
    return None


def under_type_dispatch(ancestors: list[cst.CSTNode]) -> bool:
    """Whether a branch on a value's type (``isinstance``) encloses the innermost node of
    ``ancestors`` in its function: a generic mover of mixed containers."""
    for node in reversed(ancestors):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(node, (cst.If, cst.IfExp, cst.While)) and mentions_isinstance(node.test):
            return True
    return False


def assigned_in_place(
    ancestors: list[cst.CSTNode], node: cst.CSTNode, collection: cst.BaseExpression
) -> bool:
    """Whether ``node`` (a comprehension) is the value of an assignment that stores it back
    into ``self``'s collection it iterates (see :func:`moves_state_in_place`)."""
    for parent in reversed(ancestors):
        if isinstance(parent, cst.Assign):
            value = parent.value
            if value is node or _comprehension_in(value) is node:
                return any(moves_state_in_place(t.target, collection) for t in parent.targets)
            return False
        if isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
            return False
    return False


# -- helpers that move the items of a parameter -------------------------------------------------
class _GatheringLoops(ReadOnlyVisitor):
    """The gathering loops of one function (not of nested functions, classes or lambdas, and
    not under a dispatch on type)."""

    def __init__(self, root: cst.FunctionDef, provenance: Provenance, frame: Frame) -> None:
        self.root = root
        self.provenance = provenance
        self.frame = frame
        self.dispatch = 0
        self.found: list[GatheringLoop] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _dispatches(self, node: cst.CSTNode) -> bool:
        return isinstance(node, (cst.If, cst.IfExp, cst.While)) and mentions_isinstance(node.test)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if not self.dispatch:
            found: GatheringLoop | None = None
            if isinstance(node, cst.For):
                found = gathering_for(node, self.provenance, self.frame)
            elif isinstance(node, cst.While):
                found = gathering_while(node, self.provenance, self.frame)
            elif isinstance(node, COMPREHENSIONS):
                found = gathering_comprehension(node, self.provenance, self.frame)
            if found is not None:
                self.found.append(found)
        if self._dispatches(node):
            self.dispatch += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self._dispatches(original_node):
            self.dispatch -= 1
        super().on_leave(original_node)


def parameter_names(function: cst.FunctionDef) -> list[str]:
    """The names of ``function``'s parameters, in order (``*args`` and ``**kwargs`` aside)."""
    params = function.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


def mover_loops(
    function: cst.FunctionDef, provenance: Provenance, frame: Frame
) -> dict[str, GatheringLoop]:
    """The parameters of ``function`` whose items it copies to the device one per item, each
    with the loop doing it: ``def move_items(items, device): for item in items: ...`` moves
    the items of ``items``. A call of such a function in a loop or on a hot path makes those
    copies every time (see :func:`mover_parameters`)."""
    names = set(parameter_names(function)) - {frame.self_name or "self", "cls"}
    finder = _GatheringLoops(function, provenance, frame)
    visit_read_only(function, finder)
    loops: dict[str, GatheringLoop] = {}
    for loop in finder.found:
        root = _root(_iterated(loop.iterable))
        if root is not None and root in names:
            loops.setdefault(root, loop)
    return loops


def mover_parameters(function: cst.FunctionDef, provenance: Provenance, frame: Frame) -> set[str]:
    """The parameters whose items ``function`` moves to the device one copy per item, for a
    project index to record (a helper imported from another module is a mover all the same)."""
    return set(mover_loops(function, provenance, frame))


def passed_parameters(function: cst.FunctionDef, call: cst.Call, method: bool) -> set[str]:
    """The parameters of ``function`` that ``call`` passes an argument for (all of them when it
    unpacks ``*args`` or ``**kwargs``); ``method``: the call is bound, so the first parameter is
    the instance."""
    params = function.params
    ordered = [p.name.value for p in (*params.posonly_params, *params.params)]
    if method and ordered:
        ordered = ordered[1:]
    if any(arg.star for arg in call.args):
        return set(parameter_names(function))
    passed = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    positional = [arg for arg in call.args if arg.keyword is None]
    passed.update(ordered[: len(positional)])
    return passed

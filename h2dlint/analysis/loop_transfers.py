"""Per-item transfers in loops: the names a loop binds and reads, and which calls move one item
to a device (``item_transfer``); the vocabulary ``loops.py`` works with. Moved out of
``loops.py`` as it was."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import first_positional, host_named, is_true, keyword
from h2dlint.analysis.copies import non_blocking_to_unnamed_device
from h2dlint.analysis.device_branches import other_backend_device
from h2dlint.analysis.device_owners import field_of_data
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import sequence_row_item
from h2dlint.analysis.item_data import built_from_item, made_on_device, tensor_target
from h2dlint.analysis.item_movers import moved_argument
from h2dlint.analysis.names import calls_in as calls_in
from h2dlint.analysis.names import names_in as names_in
from h2dlint.analysis.nested_functions import enclosing_function
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target, by_name

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
# Whole words of a collection's name (or of the method that makes it: ``split_outputs(...)``,
# ``normalize_output(...)``) that say it holds what a model call returned: tensors made where
# the model ran, moved to a cache or another device, not host data.
OUTPUT_WORDS = frozenset({"output", "outputs"})
# The last word of an attribute that nn.Module layers register as parameters: ``p.weight``,
# ``source.bias``, ``m.lora_weight`` of a layer are model state (on the device already, or moved
# once), not per-request data.
PARAMETER_WORDS = frozenset({"weight", "weights", "bias", "biases"})
# Words in a collection's name that say it holds one entry per metric or statistic: a handful
# of values of different dtypes and shapes, not a batch of like items; or one norm per tensor
# or group (``norms``, ``group_norms``): one-value reductions, nothing worth batching.
KIND_WORDS = frozenset({"metric", "metrics", "stat", "stats", "statistics", "norms"})
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
# numpy conversions of an item's data on the host (``np.asarray(img)``) inside a converter.
NUMPY_CONVERTERS = frozenset({"numpy.asarray", "numpy.array", "numpy.ascontiguousarray"})
# Calls that take one item at a time off a collection in a ``while`` loop.
TAKING_METHODS = frozenset({"pop", "popleft", "get", "get_nowait"})


@dataclass(frozen=True)
class Transfer:
    """One host-to-device copy: the call doing it (or the element written, for
    ``buf[i] = torch.tensor(item)``) and the tensor it moves."""

    call: cst.BaseExpression
    moved: cst.BaseExpression


@dataclass(frozen=True)
class GatheringLoop:
    """A loop or comprehension that moves each item to the device in its own copy."""

    node: cst.For | cst.While | Comprehension
    transfer: Transfer
    iterable: cst.BaseExpression


# -- names ------------------------------------------------------------------------------------
def mentions_isinstance(node: cst.CSTNode) -> bool:
    return any(
        (isinstance(call.func, cst.Name) and call.func.value in ("isinstance", "is_tensor"))
        or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "is_tensor")
        for call in calls_in(node)
    )


# -- transfers --------------------------------------------------------------------------------
def called_method(node: cst.BaseExpression) -> str | None:
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
        outer = (
            enclosing_function(provenance.context.module, frame.function)
            if not values and isinstance(frame.function, cst.FunctionDef)
            else None
        )
        if outer is not None:
            # A closure's free name (``device`` of a nested ``padded()``): its binding in the
            # function the closure is defined in.
            return _aligns_to_tensor(device, provenance, provenance.index.frame_of(outer))
        return bool(values) and all(
            isinstance(value, cst.Attribute)
            and not calls_in(value.value)
            and _aligns_to_tensor(value)
            and (
                not model_named(root_name(value) or "")
                if isinstance(value.value, (cst.Name, cst.Subscript))
                else field_of_data(value.value, MODEL_WORDS)
            )
            for value in values
        )
    if not (isinstance(device, cst.Attribute) and device.attr.value == "device"):
        return False
    base = device.value
    return not (isinstance(base, cst.Name) and base.value in ("self", "cls"))


def model_device(device: cst.BaseExpression | None) -> bool:
    """``self.model.device``, ``model.device``, ``self.vision_model.device``: a model's own
    device."""
    if not (isinstance(device, cst.Attribute) and device.attr.value == "device"):
        return False
    base = device.value
    last = base.attr.value if isinstance(base, cst.Attribute) else getattr(base, "value", "")
    return isinstance(last, str) and (last.lower() == "model" or last.lower().endswith("_model"))


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
    if isinstance(data, cst.Call) and provenance.qualify(data.func) in NUMPY_CONVERTERS:
        data = first_positional(data)  # ``torch.from_numpy(np.asarray(img))``: the item's data
    if data is None or _small_constant(data):
        return None
    return data if rooted_in(data, loop_names) or built_from_item(data, loop_names) else None


def _item_data(data: cst.BaseExpression, loop_names: set[str], indices: frozenset[str]) -> bool:
    """Whether ``data`` is the loop item's data that may be large (not a few-byte constant, not
    a loop index)."""
    if _small_constant(data) or (isinstance(data, cst.Name) and data.value in indices):
        return False
    return rooted_in(data, loop_names) or built_from_item(data, loop_names)


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
    to_model: bool = False,
) -> Transfer | None:
    """The host-to-device copy of a loop item that ``node`` is, trivial wrapping aside.
    ``indices`` are the loop names that are integers (a ``range``'s, ``enumerate``'s count);
    ``to_model``: a move to a model's device (``self.model.device``) counts, which otherwise
    aligns with another tensor's device (a collecting loop's inputs go to the model)."""
    node = strip_trivial(node, provenance, frame)
    if isinstance(node, cst.Call) and (
        made := made_on_device(
            node, provenance, frame, lambda d: _item_data(d, loop_names, indices)
        )
    ):
        return Transfer(node, made)  # ``torch.tensor(row, device=dev)``
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in ("to", "cuda", "copy_"):
        # ``stage(x, dev)`` of a helper that only returns ``x.to(dev)``: the same copy
        moved_by = moved_argument(node, provenance, frame)
        if moved_by is None or not rooted_in(moved_by, loop_names):
            return None
        moved = moved_by
    elif func.attr.value == "to":
        moved = func.value
        made = converted_item(strip_trivial(moved, provenance, frame), loop_names, provenance)
        # A host tensor made of the item, moved to another tensor's device: a copy to it.
        if made is None or tensor_target(provenance, node, frame) is None:
            if not _to_device(node, provenance, frame):
                return None
            device = _device_argument(node)
            if (
                device is None
                or other_backend_device(device)
                or names_in(device) & loop_names
                or (
                    _aligns_to_tensor(device, provenance, frame)
                    and not (to_model and model_device(device))
                )
            ):
                return None
    elif func.attr.value == "cuda":
        if any(names_in(arg.value) & loop_names for arg in node.args):
            return None  # .cuda(i): a different device per item
        moved = func.value
    else:  # copy_
        source = first_positional(node)
        destination = func.value
        if source is None or host_named(destination):
            return None
        if root_name(destination) in loop_names:
            return None  # into distinct existing tensors: one batched copy cannot replace it
        if provenance.where(destination, frame) is not Where.DEVICE and not _device_named(
            destination
        ):
            return None
        moved = source
    moved = strip_trivial(moved, provenance, frame)
    if isinstance(moved, cst.Attribute) and moved.attr.value == "data":
        moved = moved.value
    if parameter_attribute(moved):
        return None  # ``p.weight.to(dev)`` of each layer: model state, not per-request data
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


def item_write(
    small: cst.BaseSmallStatement,
    loop_names: set[str],
    provenance: Provenance,
    frame: Frame,
    indices: frozenset[str] = frozenset(),
) -> Transfer | None:
    """``buf[i, :k] = torch.tensor(item)`` (``as_tensor``, ``from_numpy``) into a tensor on the
    device: PyTorch copies the host tensor made of the loop item to the device, one blocking
    copy per item, as ``buf[i].copy_(torch.tensor(item))`` does; so does ``buf[i] = row`` of
    a row that is a Python list (:func:`sequence_row_item`)."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
        return None
    target = small.targets[0].target
    if not isinstance(target, cst.Subscript):
        return None
    destination = target.value
    if host_named(destination) or root_name(destination) in loop_names:
        return None
    if provenance.where(destination, frame) is not Where.DEVICE and not _device_named(destination):
        return None
    value = strip_trivial(small.value, provenance, frame)
    if (
        isinstance(value, cst.Name)
        and value.value in loop_names
        and sequence_row_item(provenance, value, frame)
    ):
        return Transfer(target, value)  # ``table[i] = blocks``: a Python list made a tensor
    data = converted_item(value, loop_names, provenance)
    if data is None or (isinstance(data, cst.Name) and data.value in indices):
        return None
    return Transfer(target, value)


def rows_of_one(transfer: Transfer, loop_names: set[str], provenance: Provenance) -> bool:
    """Whether the transfer moves a row of one container that is not the loop's
    (``torch.from_numpy(bitmask[row])`` for ``row`` of a mapping's values): like items of one
    array, not a mapping's named fields."""
    data = converted_item(transfer.moved, loop_names, provenance) or transfer.moved
    return (
        isinstance(data, cst.Subscript)
        and not rooted_in(data.value, loop_names)
        and not calls_in(data.value)
        and all(
            isinstance(e.slice, cst.Index) and names_in(e.slice) & loop_names for e in data.slice
        )
    )


def parameter_attribute(node: cst.BaseExpression) -> bool:
    """``layer.weight``, ``source.bias``, ``getattr(m, "bias")``: a tensor a module registers as
    a parameter (the last word of the attribute's name says so)."""
    if isinstance(node, cst.Attribute):
        name = node.attr.value
    elif (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[1].value, cst.SimpleString)
    ):
        text = node.args[1].value.evaluated_value
        name = text if isinstance(text, str) else ""
    else:
        return False
    return name.lower().rsplit("_", 1)[-1] in PARAMETER_WORDS


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


def model_named(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in MODEL_WORDS)


def root_name(node: cst.BaseExpression) -> str | None:
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else None

"""Iterables whose items a loop may move one by one without fault: tiny literals, model
state, mappings, activations, per-kind collections (``loops.iterable_excluded``). Moved out of
``loops.py`` as it was."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.argument_flow import arguments
from h2dlint.analysis.arguments import keyword, zip_iterables
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.loader_batches import loader_batch
from h2dlint.analysis.loop_transfers import (
    ACTIVATION_WORDS,
    KIND_WORDS,
    MAPPING_METHODS,
    MODEL_STATE_METHODS,
    OUTPUT_WORDS,
    TINY,
    called_method,
    calls_in,
    model_named,
    parameter_attribute,
    root_name,
)
from h2dlint.analysis.model_outputs import called_outputs, iterated_collection
from h2dlint.analysis.name_lists import names_of_objects
from h2dlint.analysis.names import names_in, target_names
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.provenance.common import SPLITTING_METHODS
from h2dlint.analysis.record_lists import record_list_attribute
from h2dlint.analysis.targets import name_words
from h2dlint.analysis.tensor_kinds import annotated_tensor_parameter


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


def bound_tiny(
    node: cst.BaseExpression, provenance: Provenance, frame: Frame, depth: int = 0
) -> bool:
    """A tiny collection through names and comprehensions: ``inputs = [img, mask, labels]``,
    then ``inp = [torch.from_numpy(e) for e in inputs]``: every binding of a name is one, and
    a comprehension over one has as many items."""
    node = iterated_collection(node)
    if tiny_iterable(node):
        return True
    if depth >= 3:
        return False
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)) and node.for_in.inner_for_in is None:
        return bound_tiny(node.for_in.iter, provenance, frame, depth + 1)
    if not isinstance(node, cst.Name) or _grown(node.value, provenance, frame):
        return False
    values = provenance.bindings(frame).reaching(node)
    return bool(values) and all(
        v is not None
        and not (isinstance(v, (cst.List, cst.Tuple)) and not v.elements)
        and bound_tiny(v, provenance, frame, depth + 1)
        for v in values
    )


def _grown(name: str, provenance: Provenance, frame: Frame) -> bool:
    """Whether the function may add items to the list ``name`` (``name.append(x)``,
    ``.extend``, ``.insert``, ``name += ...``): its display is no count."""
    if provenance.appended(frame, name):
        return True
    code = provenance.context.module.code_for_node(frame.function)
    return any(f"{name}{tail}" in code for tail in (".extend(", ".insert(", " +=", "+="))


def passed_tiny(node: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """A parameter for which every call of the function passes a short display
    (``_allreduce([loss, count])``): a few values of different kinds, not a batch of items."""
    if not (isinstance(node, cst.Name) and isinstance(frame.function, cst.FunctionDef)):
        return False
    bindings = provenance.bindings(frame)
    if not bindings.is_parameter(node) or len(bindings.reaching(node)) != 1:
        return False
    passed = arguments(provenance, frame.function, node.value)
    return passed is not None and all(
        isinstance(a.value, (cst.List, cst.Tuple)) and tiny_iterable(a.value) for a in passed
    )


def model_state_iterable(node: cst.BaseExpression, loop_names: set[str]) -> bool:
    """A loop over a model's parameters, modules or state dict (or named so)."""
    for call in calls_in(node):
        if called_method(call) in MODEL_STATE_METHODS:
            return True
    if any(model_named(n) for n in loop_names):
        return True
    return model_named(last_name(node) or "")


def last_name(node: cst.BaseExpression) -> str | None:
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
    return any(called_method(call) in MAPPING_METHODS and not call.args for call in calls_in(node))


def activation_iterable(node: cst.BaseExpression) -> bool:
    """Activations (``hidden_states``) or a model call's outputs (``outputs``): made where the
    model ran. (Not a method named so: ``_iter_reference_output_chunks(...)`` may yield host
    copies of outputs.)"""
    name = (last_name(node) or "").lower()
    return any(word in name for word in ACTIVATION_WORDS) or bool(OUTPUT_WORDS & name_words(name))


def _collects_state(node: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """A list whose every binding collects model state: ``biases = [s.bias for s in sources]``,
    ``mats = [getattr(layer.orig, "imatrix") for layer in layers]`` (a parameter of each item,
    or anything of the items of a model's layers): moving its items relocates state."""
    if not isinstance(node, cst.Name):
        return False
    values = provenance.bindings(frame).reaching(node)
    if not values:
        return False
    for value in values:
        if not isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            return False
        clause = value.for_in
        names = target_names(clause.target)
        if not (
            parameter_attribute(value.elt) or model_state_iterable(clause.iter, names)
        ) or not rooted_in_names(value.elt, names):
            return False
    return True


def rooted_in_names(node: cst.BaseExpression, names: set[str]) -> bool:
    """Whether ``node`` reads an item of ``names`` (``s.bias``, ``getattr(layer.orig, "x")``)."""
    if isinstance(node, cst.Call) and node.args:
        node = node.args[0].value
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return isinstance(node, cst.Name) and node.value in names


def per_kind_iterable(node: cst.BaseExpression) -> bool:
    """``metric_results``, ``stats``: one entry per metric or statistic (whole words: not
    ``state``); ``norms``, ``group_norms``: one norm per tensor or group, a one-value
    reduction each (as ``torch._foreach_norm``'s, :func:`reduced_items`), made where its
    tensors live and a few bytes whichever way it is copied."""
    return bool(KIND_WORDS & name_words(last_name(node) or ""))


def keyed_by_own_keys(moved: cst.BaseExpression, iterable: cst.BaseExpression) -> bool:
    """``for k in batch: batch[k]...``: a mapping iterated by its keys, also through its
    ``.items()`` or ``.keys()`` (``for key, value in input.items(): input[key] =
    input[key].to(dev)``, the value left unused)."""
    if not isinstance(moved, cst.Subscript):
        return False
    if (
        isinstance(iterable, cst.Call)
        and not iterable.args
        and isinstance(iterable.func, cst.Attribute)
        and iterable.func.attr.value in ("items", "keys")
    ):
        iterable = iterable.func.value
    return moved.value.deep_equals(iterable)


def named_field(
    moved: cst.BaseExpression,
    iterable: cst.BaseExpression,
    loop_names: set[str],
    provenance: Provenance,
    frame: Frame,
) -> bool:
    """A mapping's field: ``batch[k]`` of ``for k in batch`` (:func:`keyed_by_own_keys`), or
    ``fields[name][:, a:b]`` for ``name`` of a list of keys, with ``fields`` a dict made in
    the function (``{n: kwargs[n] for n in names}``, ``dict(...)``), or ``info[key][idx]`` for
    ``key`` of a list of a mapping's keys (:func:`mapping_keys`): a mapping's named fields, of
    different dtypes and shapes, which one copy cannot carry."""
    if keyed_by_own_keys(moved, iterable):
        return True
    if mapping_keys(iterable, provenance, frame) and _indexed_field(moved, loop_names):
        return True
    while isinstance(moved, cst.Subscript) and not _indexed_by(moved, loop_names):
        moved = moved.value
    if not isinstance(moved, cst.Subscript):
        return False
    if not isinstance(moved.value, cst.Name):
        return False
    values = provenance.bindings(frame).reaching(moved.value)
    return bool(values) and all(
        isinstance(v, (cst.Dict, cst.DictComp))
        or (isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == "dict")
        for v in values
    )


def _indexed_field(moved: cst.BaseExpression, loop_names: set[str]) -> bool:
    """``fields[key]`` (or ``fields[key][idx]``) for a loop's ``key``."""
    while isinstance(moved, cst.Subscript):
        if _indexed_by(moved, loop_names):
            return True
        moved = moved.value
    return False


def _indexed_by(node: cst.Subscript, loop_names: set[str]) -> bool:
    return len(node.slice) == 1 and (
        isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, cst.Name)
        and node.slice[0].slice.value.value in loop_names
    )


def iterable_excluded(
    iterable: cst.BaseExpression,
    loop_names: set[str],
    provenance: Provenance,
    frame: Frame,
    mapping_ok: bool = False,
) -> bool:
    """Whether a loop over ``iterable`` is left alone whatever it moves (see ``loops.py``);
    ``mapping_ok``: the items moved are rows of one other container, so a mapping iterated
    for their indices is no reason."""
    if (
        bound_tiny(iterable, provenance, frame)
        or passed_tiny(iterable, provenance, frame)
        or model_state_iterable(iterable, loop_names)
        or _collects_state(iterated_collection(iterable), provenance, frame)
        or (mapping_iterable(iterable) and not mapping_ok)
        or activation_iterable(iterable)
        or per_kind_iterable(iterable)
        or called_outputs(iterable, provenance, frame)
        or loader_batch(iterable, provenance, frame)
        or record_list_attribute(iterable, frame, provenance.context.module)
    ):
        return True
    # Rows of a tensor already on the device.
    if provenance.where(iterable, frame) is Where.DEVICE:
        return True
    # Pieces of one tensor (``x.split(1)``, ``x.unbind(0)``): one tensor that is not proven on
    # the host is a model's output or state far more often than host data, and moving pieces
    # of device memory is a gather between devices.
    pieces = iterated_collection(iterable)
    if (
        isinstance(pieces, cst.Call)
        and called_method(pieces) in SPLITTING_METHODS
        and isinstance(pieces.func, cst.Attribute)
        and not provenance.where(pieces.func.value, frame).on_host
    ):
        return True
    # Rows of one tensor (``for ys in ys_pad`` of a parameter annotated as a tensor): as with
    # its pieces above, a tensor not proven on the host is a model's input or state.
    if (
        isinstance(pieces, cst.Name)
        and annotated_tensor_parameter(provenance, pieces, frame)
        and not provenance.where(pieces, frame).on_host
        and not provenance.is_host_data(pieces, frame)
    ):
        return True
    # Tensors of a list proven on a device (``norms = [g.norm() for g in grads]`` of device
    # gradients): moving them is a gather between devices.
    sequence = iterated_collection(iterable)
    return (
        isinstance(sequence, (cst.Name, cst.List, cst.Tuple, cst.ListComp))
        and provenance.sequence_where(sequence, frame) is Where.DEVICE
    )


def item_excluded(
    moved: cst.BaseExpression,
    loop: cst.For | cst.CompFor,
    loop_names: set[str],
    provenance: Provenance,
    frame: Frame,
) -> bool:
    """Whether the item a loop moves is left alone whatever the loop is: a mapping's named
    field (:func:`named_field`) or one of a list of per-tensor reductions
    (:func:`reduced_items`)."""
    return named_field(moved, loop.iter, loop_names, provenance, frame) or reduced_items(
        moved, loop.iter, loop.target, provenance, frame
    )


def into_items_device(
    call: cst.BaseExpression, iterable: cst.BaseExpression, provenance: Provenance, frame: Frame
) -> bool:
    """``buf[i].copy_(item)`` into a buffer made on the device of the loop's own collection
    (``buf = torch.empty(..., device=sources[0].device)`` for ``i, item`` of
    ``enumerate(sources)``): the items live where the buffer does, so each copy packs (or
    converts the dtype of) an item on its own device, no host-to-device copy; as
    ``h.to(other.device)`` aligns tensors. A buffer made on another tensor's device, or named
    one, stays a per-item transfer."""
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "copy_"
    ):
        return False
    buffer = root_name(call.func.value)
    if buffer is None:
        return False
    collections = names_in(iterable) - {"enumerate", "zip", "reversed"}
    values = provenance.bindings(frame).of(buffer)
    made = [v for v in values if isinstance(v, cst.Call) and keyword(v, "device") is not None]
    # Every value the buffer may hold lives on the collection's device: made there, or made of
    # the collection itself (``torch.stack(sources)``, ``sources[0].to(dtype=...)``).
    return bool(made) and all(
        _on_device_of(value, collections)
        if isinstance(value, cst.Call) and value in made
        else value is not None and bool(names_in(value) & collections)
        for value in values
    )


def _on_device_of(call: cst.Call, collections: set[str]) -> bool:
    """An allocation given ``device=<an element of the collection>.device``."""
    device = keyword(call, "device")
    return (
        device is not None
        and isinstance(device.value, cst.Attribute)
        and device.value.attr.value == "device"
        and root_name(device.value.value) in collections
    )


# -- items that are reductions, and a mapping's keys -------------------------------------------
# Calls that reduce each of a list of tensors to one value (``torch._foreach_norm(grads)``), and
# functions or methods that reduce one tensor to a scalar when given no dimension.
LIST_REDUCTIONS = frozenset({"torch._foreach_norm", "torch._foreach_max"})
SCALAR_REDUCTIONS = frozenset(
    {"torch.linalg.vector_norm", "torch.linalg.norm", "torch.norm", "torch.sum", "torch.mean"}
)
SCALAR_METHODS = frozenset({"norm", "sum", "mean", "amax", "amin", "max", "min"})


def reduced_items(
    moved: cst.BaseExpression,
    iterable: cst.BaseExpression,
    target: cst.BaseExpression,
    provenance: Provenance,
    frame: Frame,
) -> bool:
    """Whether the moved item is one of a list of per-tensor reductions: ``norms =
    list(torch._foreach_norm(grads))`` or ``[torch.linalg.vector_norm(g) for g in grads]``
    (also as ``zip(live, norms)``'s item, and where another binding of ``norms`` moves its own
    items). Each is a one-value tensor computed where its input lives; moving them one by one
    gathers a few bytes each between devices (as ``torch.tensor(i)`` of an index, nothing worth
    batching)."""
    source = iterated_collection(iterable)
    root = moved
    while isinstance(root, (cst.Attribute, cst.Subscript)):
        root = root.value
    if not isinstance(root, cst.Name):
        return False
    if isinstance(source, cst.Call) and isinstance(source.func, cst.Name):
        zipped = zip_iterables(source)
        if zipped is None or not isinstance(target, (cst.Tuple, cst.List)):
            return False
        names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
        if root.value not in names or len(names) != len(zipped):
            return False
        source = zipped[names.index(root.value)]
    elif not (isinstance(target, cst.Name) and target.value == root.value):
        return False
    return _reduction_list(source, provenance, frame, 0)


def _reduction_list(
    node: cst.BaseExpression, provenance: Provenance, frame: Frame, depth: int
) -> bool:
    if depth > 3:
        return False
    if isinstance(node, cst.Call):
        qualified = provenance.qualify(node.func)
        if qualified in LIST_REDUCTIONS:
            return True
        if isinstance(node.func, cst.Name) and node.func.value in ("list", "tuple") and node.args:
            return _reduction_list(node.args[0].value, provenance, frame, depth + 1)
        return False
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return _scalar_reduction(node.elt, provenance)
    if not isinstance(node, cst.Name):
        return False
    values = provenance.bindings(frame).reaching(node)
    found = False
    for value in values:
        if value is None:
            return False
        if isinstance(value, cst.List) and not value.elements:
            continue  # ``norms = []`` before it is filled
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)) and iterated_collection(
            value.for_in.iter
        ).deep_equals(node):
            continue  # ``norms = [n.to(device) for n in norms]``: the same items, moved
        if not _reduction_list(value, provenance, frame, depth + 1):
            return False
        found = True
    return found


def _scalar_reduction(node: cst.BaseExpression, provenance: Provenance) -> bool:
    """``torch.linalg.vector_norm(g, p)``, ``g.norm()``, ``g.sum()``: one tensor reduced to
    one value (no ``dim``)."""
    if not isinstance(node, cst.Call) or any(
        a.keyword and a.keyword.value == "dim" for a in node.args
    ):
        return False
    if provenance.qualify(node.func) in SCALAR_REDUCTIONS:
        return len([a for a in node.args if a.keyword is None]) <= 2
    return (
        isinstance(node.func, cst.Attribute)
        and node.func.attr.value in SCALAR_METHODS
        and not [a for a in node.args if a.keyword is None and node.func.attr.value != "norm"]
    )


def mapping_keys(iterable: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """A list of a mapping's keys kept under a name or on ``self``: ``self.info_keys =
    list(info.keys())`` (every assignment but an empty ``[]``), iterated to take each named
    field."""
    node = iterated_collection(iterable)
    if isinstance(node, cst.Name):
        values = list(provenance.bindings(frame).reaching(node))
    elif isinstance(node, cst.Attribute):
        values = [v for _, v, _ in provenance.attribute_values(node, frame)]
    else:
        return False
    filled = [v for v in values if not (isinstance(v, cst.List) and not v.elements)]
    return bool(filled) and all(
        v is not None and (_keys_of_mapping(v) or names_of_objects(v)) for v in filled
    )


def _keys_of_mapping(node: cst.BaseExpression) -> bool:
    node = iterated_collection(node)
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "keys"
        and not node.args
    )

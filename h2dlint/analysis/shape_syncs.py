"""Where a tensor's values decide a shape, so that the host must read them: sizes given to a
factory or a view method, the repeats of ``repeat_interleave``, the operand of an op whose output
size depends on the data (``nonzero``, ``unique``), a boolean mask used as an index, and values
written through a mask. HTD202 (a sync on a hot path) asks these.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.argument_flow import arguments
from h2dlint.analysis.arguments import keyword, positional
from h2dlint.analysis.bindings import zipped_item
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.provenance.unpacked import display_element, unpacked_position
from h2dlint.analysis.returns import returned_values
from h2dlint.analysis.state_tensors import none_literal, own_assignments
from h2dlint.analysis.tensor_kinds import comprehension_item, tensor_evidence
from h2dlint.analysis.value_syncs import COMPARISON_OPERATORS, MASK_METHODS, value_where

# torch.<factory>(*sizes): every positional argument is a size (or a tuple of sizes).
SIZE_FACTORIES = frozenset(
    f"torch.{name}" for name in ("arange", "zeros", "ones", "empty", "rand", "randn", "full")
)
# Only the first positional argument is the size (``torch.full(size, value)``).
FIRST_ARG_SIZE = frozenset({"torch.full"})
# Tensor methods whose positional arguments are sizes (``x.repeat(n, 1)``, ``x.view(n, -1)``).
SIZE_METHODS = frozenset(
    {"repeat", "view", "reshape", "expand", "tile", "new_zeros", "new_ones", "new_empty"}
)
# Calls whose output size depends on the data: the host waits to learn it.
DATA_SIZED_METHODS = frozenset(
    {"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "bincount"}
)
DATA_SIZED_FUNCTIONS = frozenset(f"torch.{name}" for name in DATA_SIZED_METHODS)
# Tensor methods that reduce to one value when called without arguments.
REDUCTIONS = frozenset({"sum", "max", "min", "mean", "prod", "amax", "amin", "norm", "item"})


def many_values(provenance: Provenance, value: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``value`` (written through a mask) is surely a tensor that may hold many
    values: not a number (``0``, ``float("-inf")``, a name bound to one), not a 0-d reduction
    (``x.sum()``), not ``torch.tensor(number)``."""
    if isinstance(value, (cst.Integer, cst.Float, cst.UnaryOperation)):
        return False
    if isinstance(value, cst.Call):
        func = value.func
        if isinstance(func, cst.Name) and func.value in ("float", "int", "bool"):
            return False
        if isinstance(func, cst.Attribute) and func.attr.value in REDUCTIONS and not value.args:
            return False
        qualified = provenance.qualify(func) or ""
        if qualified in ("torch.tensor", "torch.as_tensor", "torch.scalar_tensor"):
            first = positional(value)
            return bool(first) and isinstance(first[0].value, (cst.List, cst.ListComp))
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in ("to", "type", "contiguous", "view_as", "reshape_as")
    ):
        value = value.func.value  # a conversion keeps the number of values
    if provenance.is_host_data(value, frame):
        return False
    if provenance.fact(value, frame).known:
        return True
    return tensor_evidence(provenance, value, frame) is not None


def own_member(provenance: Provenance, call: cst.Call) -> bool:
    """Whether ``call`` calls a method or attribute of the function's own object
    (``self.repeat(x)``, ``cls.expand(n)``): a submodule or a method, never a tensor's."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
        return False
    frame = provenance.current_frame()
    return func.value.value in {frame.self_name, "self", "cls"} - {None}


def row_reduction(node: cst.BaseExpression) -> bool:
    """``t.prod(dim=-1)``, ``torch.sum(t, dim=-1)``: every row reduced at once (HTD201's fix)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return False
    dim = keyword(node, "dim")
    return (
        node.func.attr.value in ("prod", "sum")
        and dim is not None
        and isinstance(dim.value, cst.UnaryOperation)
        and isinstance(dim.value.expression, cst.Integer)
        and dim.value.expression.value == "1"
    )


def sizes_of(args: list[cst.Arg]) -> list[cst.BaseExpression]:
    """The size expressions among positional arguments, also inside a tuple or list of sizes."""
    sizes: list[cst.BaseExpression] = []
    for arg in args:
        value = arg.value
        if isinstance(value, (cst.Tuple, cst.List)):
            sizes.extend(e.value for e in value.elements if isinstance(e, cst.Element))
        else:
            sizes.append(value)
    return [s for s in sizes if not isinstance(s, (cst.Integer, cst.UnaryOperation))]


def repeats_of(call: cst.Call, is_method: bool) -> cst.BaseExpression | None:
    """The repeats of ``x.repeat_interleave(r)``, ``torch.repeat_interleave(x, r)`` or
    ``torch.repeat_interleave(r)``, unless it is a literal number."""
    given = keyword(call, "repeats")
    args = positional(call)
    if given is not None:
        repeats: cst.BaseExpression | None = given.value
    elif is_method:
        repeats = args[0].value if args else None
    elif len(args) == 1:
        repeats = args[0].value
    else:
        repeats = args[1].value if len(args) > 1 else None
    return None if isinstance(repeats, (cst.Integer, cst.UnaryOperation)) else repeats


def operand_of(call: cst.Call, method: str | None) -> cst.BaseExpression | None:
    if method is not None and isinstance(call.func, cst.Attribute):
        return call.func.value
    args = positional(call)
    return args[0].value if args else None


def data_sized_operand(call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """``call`` as an op whose output size depends on its operand's values, spelled on the
    tensor or through ``torch`` (``m.nonzero()``, ``torch.unique(m)``, ``torch.where(m != 0)``
    with one argument, which is ``nonzero``): the operand and how the call is spelled. The host
    waits to learn the size, a sync per call (session 23: torchvision's `masks_to_boxes` ran
    `torch.where(mask != 0)` once per mask). None for any other call."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    name = func.attr.value
    through_torch = isinstance(func.value, cst.Name) and func.value.value == "torch"
    if through_torch and name == "where" and len(call.args) == 1 and not call.args[0].keyword:
        return call.args[0].value, "`torch.where(...)` of one argument"
    if name not in DATA_SIZED_METHODS or name == "bincount":
        return None  # bincount's size is its largest value, often bounded by ``minlength``
    if through_torch:
        operand = operand_of(call, None)
        return (operand, f"`torch.{name}(...)`") if operand is not None else None
    return func.value, f"`.{name}()`"


# Steps of a mask's derivation followed: a name, its call's argument, the helper's returned
# element and that name's own bindings.
MAX_MASK_DEPTH = 7


def is_mask(provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> bool:
    """Whether ``node`` is surely a boolean mask: a comparison, `~`/`&`/`|` of masks, a mask
    method (`x.isnan()`, `x.bool()`), or a name bound only to masks (also a parameter given
    masks by every call of the module, and an element unpacked from a helper's masks)."""
    if depth > MAX_MASK_DEPTH:
        return False
    if isinstance(node, cst.Comparison):
        return all(isinstance(c.operator, COMPARISON_OPERATORS) for c in node.comparisons)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return is_mask(provenance, node.expression, frame, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(
        node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)
    ):
        return is_mask(provenance, node.left, frame, depth + 1) or is_mask(
            provenance, node.right, frame, depth + 1
        )
    if isinstance(node, cst.Call):
        func = node.func
        if _boolean_dtype(provenance, node):
            return True  # ``torch.ones_like(ids, dtype=torch.bool)``, ``x.to(torch.bool)``
        if isinstance(func, cst.Attribute) and func.attr.value in MASK_METHODS:
            return not node.args or func.attr.value != "bool"
        if isinstance(func, cst.Attribute) and func.attr.value in _MASK_KEEPING:
            # ``mask.view(-1)``, ``mask.flatten()``: the same elements, still booleans
            return is_mask(provenance, func.value, frame, depth + 1)
        qualified = provenance.qualify(func) or ""
        return qualified.startswith("torch.") and qualified[6:] in MASK_METHODS
    if isinstance(node, cst.Subscript):
        # ``masks[i]``, ``mask[:, :n]``: a part of a mask is a mask.
        return is_mask(provenance, node.value, frame, depth + 1)
    if isinstance(node, cst.Attribute):
        return _mask_attribute(provenance, node, frame, depth)
    if isinstance(node, cst.Name):
        bindings = provenance.bindings(frame)
        found = bindings.reaching_bindings(node)
        return bool(found) and all(
            is_mask(provenance, b.value, frame, depth + 1)
            if b.value is not None
            else _mask_binding(provenance, b.statement, node.value, frame, depth)
            for b in found
        )
    return False


def device_mask(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``node`` is a boolean mask (:func:`is_mask`) not proven on the host: a host
    mask (``torch.tensor(keep, dtype=torch.bool)``) is turned into indices on the host, and
    indexing with it waits for no device work."""
    return is_mask(provenance, node, frame) and not value_where(provenance, node, frame).on_host


def _boolean_dtype(provenance: Provenance, call: cst.Call) -> bool:
    """Whether ``call`` makes a boolean tensor by its ``dtype``: a ``torch.*`` function or a
    tensor's ``new_*`` given ``dtype=torch.bool``, or ``x.to(torch.bool)``."""
    func = call.func
    given = keyword(call, "dtype")
    dtype = given.value if given is not None else None
    if dtype is None and isinstance(func, cst.Attribute) and func.attr.value == "to":
        dtype = next((a.value for a in positional(call) if provenance.qualify(a.value)), None)
    if dtype is None or provenance.qualify(dtype) != "torch.bool":
        return False
    if isinstance(func, cst.Attribute) and (
        func.attr.value == "to" or func.attr.value.startswith("new_")
    ):
        return True
    return (provenance.qualify(func) or "").startswith("torch.")


def _mask_binding(
    provenance: Provenance, statement: cst.CSTNode, name: str, frame: Frame, depth: int
) -> bool:
    """A binding without a value: a row of a mask, an element unpacked from a helper's mask,
    or a parameter given masks."""
    if isinstance(statement, (cst.FunctionDef, cst.Param)):
        return _mask_parameter(provenance, name, frame, depth)
    return _mask_row(provenance, statement, name, frame, depth) or _mask_unpacked(
        provenance, statement, name, frame, depth
    )


def _mask_parameter(provenance: Provenance, name: str, frame: Frame, depth: int) -> bool:
    """A parameter for which every call of its function in the module passes a mask
    (``self.loss(hidden, masked)`` with ``masked = (torch.rand(...) < p) & maskable`` in the
    caller: unsloth's diffusion objectives gathered ``hidden[masked]`` in the helper). A call
    from another module, or one that is not known, proves nothing."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    if not any(p.name.value == name for p in function.params.params):
        return False
    passed = arguments(provenance, function, name)
    return bool(passed) and all(
        a.source is provenance and is_mask(provenance, a.value, a.frame, depth + 1)
        for a in passed or ()
    )


def _mask_unpacked(
    provenance: Provenance, statement: cst.CSTNode, name: str, frame: Frame, depth: int
) -> bool:
    """``noisy, masked, p = self.sample_noise(...)`` where every ``return`` of the module's
    function is a display whose element at ``masked``'s position is a mask."""
    unpacked = unpacked_position(statement, name)
    if unpacked is None:
        return False
    value, position, length = unpacked
    if not isinstance(value, cst.Call):
        return False
    found = provenance.callee(value, frame)
    if found is None or found[0] is not provenance:
        return False
    function = found[1]
    inner = provenance.index.frame_of(function)
    values = [v for v in returned_values(function) if not none_literal(v)]
    elements = [
        display_element(v, position, length) if isinstance(v, (cst.Tuple, cst.List)) else None
        for v in values
    ]
    return bool(elements) and all(
        e is not None and is_mask(provenance, e, inner, depth + 1) for e in elements
    )


# Tensor methods that keep their input's elements and dtype (a mask stays a mask).
_MASK_KEEPING = frozenset(
    {"view", "reshape", "flatten", "squeeze", "unsqueeze", "contiguous", "clone", "detach"}
    | {"transpose", "permute", "expand", "expand_as", "view_as"}
)


def _mask_attribute(provenance: Provenance, node: cst.Attribute, frame: Frame, depth: int) -> bool:
    """``self.is_finished`` where every assignment of it in its class is a mask
    (``self.is_finished = topk_ids.eq(eos)``, session 30: OpenNMT-py's greedy search gathers
    its alive rows with ``~self.is_finished.view(-1)``). An assignment of ``None`` is passed
    over; an unknown one (unpacked, augmented) proves nothing."""
    assigned = own_assignments(provenance, node, frame) or []
    values = [(v, f) for v, f in assigned if v is None or not none_literal(v)]
    return bool(values) and all(
        v is not None and not isinstance(v, cst.Attribute) and is_mask(provenance, v, f, depth + 1)
        for v, f in values
    )


def _mask_row(
    provenance: Provenance, statement: cst.CSTNode, name: str, frame: Frame, depth: int
) -> bool:
    """Whether ``statement`` binds ``name`` to a row of a mask: ``for m in mask``, ``for i, m
    in enumerate(mask)``, ``for x, m in zip(xs, mask)`` (each row of a boolean tensor is one),
    also a comprehension's ``for``."""
    rows = zipped_item(statement, name) or comprehension_item(statement, name)
    return rows is not None and is_mask(provenance, rows, frame, depth + 1)


def mask_write(
    provenance: Provenance,
    target: cst.BaseExpression,
    value: cst.BaseExpression | None,
    frame: Frame,
) -> tuple[cst.BaseExpression, str] | None:
    """``x[mask] = values`` with a tensor of values (not one number: ``x[mask] = 0`` is a
    ``masked_fill``), or, with ``value`` None, ``x[mask] += v`` (reads ``x[mask]`` first):
    PyTorch turns the mask into indices (``nonzero``), which syncs. The tensor to name (``x``
    on the device, else the mask) and what the code does with it (``{}``: the tensor); None
    for any other write."""
    if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
        return None
    index = target.slice[0].slice
    if not isinstance(index, cst.Index) or not is_mask(provenance, index.value, frame):
        return None
    if value is not None and not many_values(provenance, value, frame):
        return None
    verb = "writing" if value is not None else "updating in place"
    if value_where(provenance, target.value, frame) is Where.DEVICE:
        return target.value, f"{verb} {{}} through a boolean mask"
    return index.value, f"{verb} through the boolean mask {{}}"

"""Tensor factories: which build a tensor from sizes and fill values alone (never data), and
the chains of value-exact methods between a factory and a copy of its result. Shared by the
rules about tensors made on the host only to be moved (HTD301, HTD302)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.arguments import first_positional
from h2dlint.analysis.torch_api import DTYPE_METHODS, DTYPE_NAMES

# Factories whose arguments are sizes and fill values, never data: made on the host, then moved.
SHAPE_FACTORIES = frozenset(
    f"torch.{name}"
    for name in ("zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye")
)
# Factories whose every value is exact in any dtype: a dtype of the copy can move into them.
EXACT_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.eye"})
# Random factories: made on the device they draw from the device's generator, other numbers.
RANDOM_FACTORIES = frozenset(
    f"torch.{name}" for name in ("rand", "randn", "randint", "randperm", "normal")
)
# Methods between the factory and the copy that compute the same values on either device.
EXACT_METHODS = DTYPE_METHODS | frozenset(
    {
        "fill_",
        "zero_",
        "triu",
        "tril",
        "triu_",
        "tril_",
        "unsqueeze",
        "view",
        "reshape",
        "expand",
        "contiguous",
        # Views and copies of the same values (session 20: transformers' assisted decoding
        # moves `torch.arange(n).expand_as(ids).to(ids.device)` each candidate step).
        "expand_as",
        "repeat",
        "flatten",
        "squeeze",
        "transpose",
        "permute",
        # A cast to another tensor's dtype (and device): the same values (session 24:
        # neuralforecast's `(torch.ones(shape) / n).type_as(attn).to(attn.device)`).
        "type_as",
        # Reductions of a tensor of sizes and fills are still sizes and fills (session 35:
        # torchrec 1.3's `torch.ones(weights.shape).sum(dim=-1).to(device=...)` every metric
        # update, `torch.ones_like(weights).sum(dim=-1)` in 1.4). Scans (`cumsum`) stay out:
        # HTD301 keeps `torch.ones(n).cumsum(0).to(device)` as host work (session 20's VALID).
        "sum",
        "mean",
        "prod",
    }
)
# Functions of torch that compute the same values on either device from their first argument
# (session 20: `torch.triu(torch.ones([2048, 2048]), diagonal=1).bool().to(q.device)`, a mask
# built on the host for every attention call).
EXACT_FUNCTIONS = frozenset({"triu", "tril"})


def factory_of(node: cst.BaseExpression) -> cst.Call | None:
    """The factory call at the root of a chain of value-exact methods (and views by basic
    indexing, ``[None, :]``), or None."""
    root = chain_root(node)
    return root if isinstance(root, cst.Call) else None


def chain_root(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """What a chain of value-exact methods, views by basic indexing and ``torch.triu``-like
    functions starts from: a call (``factory_of``'s factory) or any other expression
    (``(ones / n)`` of ``(ones / n).type_as(x)``); None when a link is not value-exact."""
    while isinstance(node, (cst.Call, cst.Subscript)):
        if isinstance(node, cst.Subscript):
            if not basic_view_index(node):
                return None
            node = node.value
            continue
        func = node.func
        if _exact_function(func) and (inner := first_positional(node)) is not None:
            node = inner
            continue
        if isinstance(func, cst.Attribute) and func.attr.value in EXACT_METHODS:
            if func.attr.value == "fill_" and not numeric(first_positional(node)):
                return None
            node = func.value
            continue
        if isinstance(func, cst.Attribute) and func.attr.value == "to" and dtype_cast(node):
            node = func.value  # ``.to(LAF.dtype)`` before ``.to(LAF.device)``: a cast
            continue
        return node
    return node


def dtype_cast(call: cst.Call) -> bool:
    """``x.to(torch.float32)``, ``x.to(other.dtype)``, ``x.to(dtype=d)``: a cast of the same
    values where they are, no move (session 24: kornia 0.6's `torch.ones(1, 1, 2,
    3).to(LAF.dtype).to(LAF.device)` per call)."""
    if len(call.args) != 1:
        return False
    arg = call.args[0]
    if arg.keyword is not None:
        return arg.keyword.value == "dtype"
    value = arg.value
    if not isinstance(value, cst.Attribute) or arg.star:
        return False
    if value.attr.value == "dtype":
        return True
    return (
        isinstance(value.value, cst.Name)
        and value.value.value == "torch"
        and f"torch.{value.attr.value}" in DTYPE_NAMES
    )


def basic_view_index(node: cst.Subscript) -> bool:
    """``x[None, :]``, ``x[..., None]``, ``x[:, 1:]``, ``x[0]``: indexing by ``None``, ``...``,
    integer literals and slices of them only, a view of the same values on either device
    (session 23: audiocraft's `torch.arange(n)[None, :].to(lengths.device)` in every mask)."""
    return subscript_parts(node, _view_index, numeric_constant)


def _view_index(value: cst.BaseExpression) -> bool:
    return (
        (isinstance(value, cst.Name) and value.value == "None")
        or isinstance(value, cst.Ellipsis)
        or numeric_constant(value)
    )


def subscript_parts(
    node: cst.Subscript,
    index_ok: Callable[[cst.BaseExpression], bool],
    bound_ok: Callable[[cst.BaseExpression], bool],
) -> bool:
    """Whether every element of ``node``'s subscript is an index ``index_ok`` accepts or a
    slice whose given bounds (lower, upper, step) ``bound_ok`` accepts."""
    for element in node.slice:
        part = element.slice
        if isinstance(part, cst.Index):
            if not index_ok(part.value):
                return False
        elif isinstance(part, cst.Slice):
            bounds = (part.lower, part.upper, part.step)
            if any(b is not None and not bound_ok(b) for b in bounds):
                return False
        else:
            return False
    return True


def _exact_function(func: cst.BaseExpression) -> bool:
    """``torch.triu``/``torch.tril`` spelled through the module's name."""
    return (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == "torch"
        and func.attr.value in EXACT_FUNCTIONS
    )


def numeric(node: cst.BaseExpression | None) -> bool:
    """A number literal, possibly negated, or ``float("inf")``-style."""
    if node is None:
        return False
    if numeric_constant(node):
        return True
    if isinstance(node, cst.UnaryOperation):
        return numeric(node.expression)
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "float"
        and len(node.args) == 1
        and isinstance(node.args[0].value, cst.SimpleString)
    )


def numeric_constant(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def constant_choice(node: cst.BaseExpression) -> bool:
    """``a if test else b`` with ``a`` and ``b`` numbers: a 0-d constant either way (session 20:
    transformers' `torch.tensor(0.0 if this_peer_finished else 1.0).to(device)` per step)."""
    return (
        isinstance(node, cst.IfExp)
        and numeric_constant(node.body)
        and numeric_constant(node.orelse)
    )


def constant_fill(node: cst.BaseExpression) -> bool:
    """``[c] * n`` (or ``n * [c]``) with ``c`` a number: one value repeated."""
    if not isinstance(node, cst.BinaryOperation) or not isinstance(node.operator, cst.Multiply):
        return False
    return any(
        isinstance(side, cst.List)
        and len(side.elements) == 1
        and numeric_constant(side.elements[0].value)
        for side in (node.left, node.right)
    )


# Factories that build a tensor from data (``torch.tensor([])``), and those from sizes whose
# first size may be zero (``torch.empty(0, d)``).
_DATA_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor"})


def empty_factory(qualified: str | None, call: cst.Call) -> bool:
    """Whether ``call`` (of the torch function ``qualified``) makes a tensor with no elements:
    ``torch.tensor([])``, ``torch.as_tensor(())``, ``torch.zeros(0)``, ``torch.empty(0, d)``.
    Its copy moves no bytes (OLMo-core 3.0.0's metric reduction stands in
    ``torch.tensor([]).to(device=device, non_blocking=True)`` for a step with no metric,
    ``train/utils.py:291``)."""
    first = first_positional(call)
    if first is None:
        return False
    if qualified in _DATA_FACTORIES:
        return isinstance(first, (cst.List, cst.Tuple)) and not first.elements
    if qualified in EXACT_FACTORIES:
        return isinstance(first, cst.Integer) and first.value == "0"
    return False

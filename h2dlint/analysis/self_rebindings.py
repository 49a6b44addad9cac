"""A name rebound by arithmetic on itself keeps what it was: ``loss = loss / accumulation_steps``,
``loss = loss * weight``, ``loss /= n`` and ``loss = loss.mean()`` leave a tensor a tensor
(gradient accumulation, the commonest training-loop shape), so they are not a second binding
that may hold another kind of value.

The rebinding's value must be the name itself under arithmetic operators (either operand of
``+ - * / // % ** @``, nested: ``loss * w / n``; a unary minus), or a method of the name itself
that returns a tensor of a tensor and only an array of an array (a reduction or a cast:
``mean``, ``sum``, ``float``...; not ``item``, ``tolist``, ``numpy`` or ``cpu().numpy()``),
or an augmented assignment of an arithmetic operator. A tensor stays a tensor through each, and
a value that is not one (a number, a numpy array) does not become one by a method of its own.
A number updated by a tensor becomes one (``total = 0.0`` then ``total = total + loss``): a
tensor method used on it then proves it a tensor after its updates, where such a use can be;
where the number is read before them, provenance says host (a Python number) first.
"""

from __future__ import annotations

import libcst as cst

# Methods of a tensor that return a tensor (of the same data, reduced or cast) and of a numpy
# array an array or a numpy scalar, never a tensor: a name rebound to one of them keeps its kind.
# Not the methods that themselves prove a tensor (``item_writes.TENSOR_USE_METHODS``:
# ``x = x.detach()``, ``x = x.contiguous()``): generic helpers write them under an
# ``isinstance(x, torch.Tensor)`` guard (monai's ``decollate_batch``), and the rebinding would
# then prove its own name a tensor outside the guard, where it is a dict, a list or a number.
KEEPING_METHODS = frozenset(
    {"mean", "sum", "float", "double", "half", "bfloat16", "squeeze", "clone"}
)


def keeps_kind(name: str, value: cst.BaseExpression) -> bool:
    """Whether ``name = value`` rebinds ``name`` to arithmetic on itself or to a reduction or
    cast of itself (``loss / n``, ``loss * w / n``, ``-loss``, ``loss.mean()``)."""
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)):
        return _has_self(name, value)
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in KEEPING_METHODS
        and all(arg.star == "" for arg in value.args)
    ):
        return isinstance(value.func.value, cst.Name) and value.func.value.value == name
    return False


def _has_self(name: str, value: cst.BaseExpression) -> bool:
    """Whether the arithmetic ``value`` has the name itself as an operand (through nested
    arithmetic, not inside calls or subscripts)."""
    if isinstance(value, cst.Name):
        return value.value == name
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        return _has_self(name, value.expression)
    if isinstance(value, cst.BinaryOperation):
        return _has_self(name, value.left) or _has_self(name, value.right)
    return False

"""Python builtins that walk a tensor element by element and test each element on the host.

``max(t)``, ``min(t)`` and ``sorted(t)`` compare the elements of ``t`` pairwise in Python, and
``any(t)``/``all(t)`` take ``bool()`` of each: every comparison or test of a 0-d element of a
device tensor copies it to the host and waits for the stream, one sync per element (flash-linear-
attention's YOCO layer took ``max(seqlen_offset)`` of a device tensor every forward until 0.6).
The tensor's own reduction (``t.max()``, ``t.any()``) runs in one kernel and is read once.

``sum(t)`` adds the elements on the device (no sync, one kernel launch per element) and
``list(t)``/``tuple(t)`` only make views: not walks that read the host.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import positional

# Builtin -> the tensor method that does the same work in one kernel.
WALKING_BUILTINS = {"max": "max", "min": "min", "sorted": "sort", "any": "any", "all": "all"}
# What the argument may be: a tensor is a name, an attribute, an element or a call's result;
# a generator or a display walks Python values the loop makes (HTD201's comprehensions).
_OPERANDS = (cst.Name, cst.Attribute, cst.Subscript, cst.Call)


@dataclass(frozen=True)
class BuiltinWalk:
    """``builtin(tensor)``: the builtin's name, and the tensor method that replaces it."""

    builtin: str
    method: str
    tensor: cst.BaseExpression


def builtin_walk(call: cst.Call, bound: frozenset[str] = frozenset()) -> BuiltinWalk | None:
    """``call`` as a builtin that walks one iterable (``max(t)``, ``sorted(t, reverse=True)``),
    with the iterable; None for other calls, several positional arguments (``max(a, b)``
    compares two values once), a starred one, a generator or a display, and a builtin name
    the code rebinds (``bound``)."""
    func = call.func
    if not isinstance(func, cst.Name) or func.value not in WALKING_BUILTINS:
        return None
    if func.value in bound or any(arg.star for arg in call.args):
        return None
    args = positional(call)
    if len(args) != 1 or not isinstance(args[0].value, _OPERANDS):
        return None
    return BuiltinWalk(func.value, WALKING_BUILTINS[func.value], args[0].value)


# Literals: a value Python compares without any tensor's help.
_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def compared_values(call: cst.Call) -> list[cst.BaseExpression]:
    """The operands of ``max(a, b)`` / ``min(a, b, c)`` (two or more positional arguments, none
    starred, no ``key=``) that may be tensors: Python compares them
    pairwise (``b > a``) and asks ``bool()`` of each result, so a 0-d CUDA tensor among them
    is copied to the host and waited for, once per comparison (OpenNMT-py 3.4.3's beam search
    keeps ``best_scores[b] = max(s, best_scores[b])`` of a device score per finished
    hypothesis). Literals and helpers' results are left out; empty for any other call."""
    func = call.func
    if not isinstance(func, cst.Name) or func.value not in ("max", "min"):
        return []
    if any(arg.star or arg.keyword is not None for arg in call.args):
        return []
    args = positional(call)
    if len(args) < 2:
        return []
    return [a.value for a in args if not _literal(a.value) and not _helper_call(a.value)]


def _helper_call(node: cst.BaseExpression) -> bool:
    """A call of a function or of the object's own method (``self._rms(p)``, ``norm(x)``):
    what it returns may be a Python number already (the read, if any, is inside it). A tensor
    method's result (``x.sum()``) or a ``torch`` function's stays a tensor."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Name):
        return True
    return (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value in ("self", "cls")
    )


def _literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        return _literal(node.expression)
    return isinstance(node, _LITERALS)

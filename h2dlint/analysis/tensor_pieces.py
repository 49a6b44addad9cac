"""Calls that cut a tensor into rows or pieces on its device: ``t.unbind(0)`` gives its rows,
``t.split(n)``, ``torch.chunk(t, k)``, ``t.unbind(1)`` pieces. A loop over them reads each one
(one device sync per row or piece where it reads a value)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional


def unbound(node: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """``(t, True)`` for ``t.unbind()`` / ``t.unbind(0)`` / ``torch.unbind(t)`` (the rows of
    ``t``), ``(t, False)`` for ``t.unbind(1)`` and other dimensions (pieces of ``t``)."""
    if not (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "unbind"
    ):
        return None
    owner, call = node.func.value, node
    if isinstance(owner, cst.Name) and owner.value == "torch":
        args = node.args
        if not args or args[0].keyword is not None or args[0].star:
            return None
        owner, call = args[0].value, node.with_changes(args=args[1:])
    if any(a.star for a in call.args) or len(call.args) > 1:
        return None
    return owner, dim_zero(call)


# Calls that cut a tensor into pieces on its device, as methods (``t.split(n)``) or functions
# of torch (``torch.chunk(t, k)``); ``unbind`` (rows) is a row walk of its own.
PIECE_CALLS = frozenset({"split", "chunk", "tensor_split", "split_with_sizes"})


def split_source(node: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """``t`` of ``t.split(n)``, ``t.chunk(k)``, ``torch.split(t, n)``, ``torch.tensor_split(t,
    idx)``: a loop over the call walks pieces of ``t`` (a string's ``line.split(",")`` names
    ``line``, which no tensor fact proves a tensor)."""
    if not (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in PIECE_CALLS
    ):
        return None
    owner = node.func.value
    if isinstance(owner, cst.Name) and owner.value == "torch":
        return None if any(a.star for a in node.args) else first_positional(node)
    return owner


def dim_zero(call: cst.Call) -> bool:
    if not call.args:
        return True
    if len(call.args) != 1:
        return False
    value = call.args[0].value
    keyword_ok = call.args[0].keyword is None or call.args[0].keyword.value == "dim"
    return keyword_ok and isinstance(value, cst.Integer) and value.value == "0"

"""Row reductions: comprehensions whose element is the product or sum of a whole row
(``torch.prod(r).item()``, ``math.prod(r)`` over ``t.tolist()``), which one
``t.prod(dim=-1).tolist()`` replaces. Split out of ``syncs.py``."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import positional
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance

# -- row reductions: the product or sum of each row ----------------------------------------------


@dataclass(frozen=True)
class RowReduction:
    """A comprehension element that reduces a whole row: ``op`` is ``prod`` or ``sum``;
    ``torch_func`` is the ``torch.prod``/``torch.sum`` node when the element called it (the fix
    then keeps that spelling)."""

    op: str
    torch_func: cst.BaseExpression | None = None
    numpy: bool = False


def _unwrap_int(node: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "int"
        and len(node.args) == 1
        and node.args[0].keyword is None
        and not node.args[0].star
    ):
        return node.args[0].value, True
    return node, False


def _is_name(node: cst.BaseExpression | None, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def tensor_row_reduction(
    provenance: Provenance, elt: cst.BaseExpression, row: str
) -> RowReduction | None:
    """``elt`` reduces the whole tensor row ``row`` to a number: ``torch.prod(r).item()``,
    ``r.sum().item()``, ``int(torch.prod(r))``, ``int(r.prod())``."""
    inner, wrapped = _unwrap_int(elt)
    if (
        isinstance(inner, cst.Call)
        and isinstance(inner.func, cst.Attribute)
        and inner.func.attr.value == "item"
        and not inner.args
    ):
        inner = inner.func.value
    elif not wrapped:
        return None
    if not isinstance(inner, cst.Call) or (inner.args and len(inner.args) != 1):
        return None
    func = inner.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("prod", "sum"):
        if not inner.args and _is_name(func.value, row):
            return RowReduction(func.attr.value)
        qualified = provenance.qualify(func)
        if (
            qualified in ("torch.prod", "torch.sum")
            and len(inner.args) == 1
            and inner.args[0].keyword is None
            and _is_name(inner.args[0].value, row)
        ):
            return RowReduction(func.attr.value, func)
    return None


def list_row_reduction(
    provenance: Provenance, elt: cst.BaseExpression, target: cst.BaseExpression, frame: Frame
) -> RowReduction | None:
    """``elt`` reduces a whole row of a ``.tolist()``: ``math.prod(r)``, ``sum(r)``,
    ``functools.reduce(operator.mul, r)``, or ``t * h * w`` over ``for t, h, w in ...``."""
    inner, _ = _unwrap_int(elt)
    if isinstance(target, cst.Name) and isinstance(inner, cst.Call):
        args = positional(inner)
        if len(inner.args) != len(args):
            return None
        qualified = provenance.qualify(inner.func)
        row = target.value
        if len(args) == 1 and _is_name(args[0].value, row):
            if qualified == "math.prod":
                return RowReduction("prod")
            if qualified in ("numpy.prod", "numpy.sum"):
                return RowReduction(qualified.split(".")[1], numpy=True)
            if _is_name(inner.func, "sum") and not provenance.bindings(frame).of("sum"):
                return RowReduction("sum")
        if (
            len(args) == 2
            and qualified == "functools.reduce"
            and _is_name(args[1].value, row)
            and _is_product(provenance, args[0].value)
        ):
            return RowReduction("prod")
        return None
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value for e in target.elements]
        if len(names) < 2 or not all(isinstance(n, cst.Name) for n in names):
            return None
        wanted = sorted(n.value for n in names if isinstance(n, cst.Name))
        for op, operator in (("prod", cst.Multiply), ("sum", cst.Add)):
            operands = _chain(inner, operator)
            if operands is not None and sorted(operands) == wanted:
                return RowReduction(op)
    return None


def _chain(node: cst.BaseExpression, operator: type[cst.BaseBinaryOp]) -> list[str] | None:
    """The names of ``a * b * c`` (for ``operator`` Multiply), or None when it is not such a
    chain of plain names."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, operator):
        left = _chain(node.left, operator)
        right = _chain(node.right, operator)
        if left is not None and right is not None:
            return left + right
    return None


def _is_product(provenance: Provenance, func: cst.BaseExpression) -> bool:
    """``operator.mul`` or ``lambda a, b: a * b``."""
    if provenance.qualify(func) == "operator.mul":
        return True
    if isinstance(func, cst.Lambda):
        params = [p.name.value for p in func.params.params]
        body = func.body
        return (
            len(params) == 2
            and isinstance(body, cst.BinaryOperation)
            and isinstance(body.operator, cst.Multiply)
            and _chain(body, cst.Multiply) in (params, params[::-1])
        )
    return False

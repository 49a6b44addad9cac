"""The operand Python asks ``bool()`` of in ``a and b``, ``a or b`` and ``not a`` outside a test
(``flag = (score <= best) or done``): the left operand of ``and``/``or`` picks the result (the
right one is returned as it is), ``not`` converts its operand. Under a test (``if``, ``while``,
a conditional's or a comprehension's test), an ``assert``, or as the argument of ``bool()``,
``int()`` or ``float()``, the enclosing read is judged instead (HTD202 asks this)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

_READING_BUILTINS = frozenset({"bool", "int", "float"})


def bool_operand(
    node: cst.CSTNode, ancestors: Sequence[cst.CSTNode]
) -> tuple[cst.BaseExpression, str] | None:
    """The operand of ``node`` (an ``and``/``or``/``not``) read with ``bool()`` here, and how
    to say so; None for another node, one judged where it is used, or an operand that is
    itself a boolean operation (judged as its own node)."""
    if isinstance(node, cst.BooleanOperation):
        keyword = "and" if isinstance(node.operator, cst.And) else "or"
        operand, kind = node.left, f"an `{keyword}` operand"
    elif _is_not(node):
        assert isinstance(node, cst.UnaryOperation)
        operand, kind = node.expression, "the operand of `not`"
    else:
        return None
    if isinstance(operand, cst.BooleanOperation) or _is_not(operand):
        return None
    return None if _judged_outside(ancestors, node) else (operand, kind)


def _is_not(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)


def _judged_outside(ancestors: Sequence[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` is (inside ``and``/``or``/``not`` only) a test, an ``assert``'s, or the
    argument of a reading builtin."""
    child = node
    for parent in reversed(ancestors):
        if (
            isinstance(parent, cst.BooleanOperation)
            or _is_not(parent)
            or isinstance(parent, cst.Arg)
        ):
            child = parent
            continue
        if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.CompIf)):
            return parent.test is child
        if isinstance(parent, cst.Call) and isinstance(child, cst.Arg):
            return isinstance(parent.func, cst.Name) and parent.func.value in _READING_BUILTINS
        return isinstance(parent, cst.Assert)
    return False

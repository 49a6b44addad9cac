"""Reads of a tensor known by how their result is used.

Host reads whose number goes straight back into a device tensor: ``total += n.item()``
where ``total`` is on the device. The read syncs the host only for PyTorch to copy the number
back to the device; ``total += n`` keeps the sum on the device and does not wait (a device
round trip of one value, the shape megatron-core removed from its pipeline schedules).

Only in-place updates (``total += ...``, ``total = total + ...``) of a name whose every
binding in its function is on the device or an in-place update of it (``nonlocal`` names are
looked up in the enclosing function) count; the read must be an operand of the update's
arithmetic (``total += n.item() / k``), not an argument of a call.

Builtins that iterate a tensor and compare or test its elements (0-d tensors) as Python bools,
one sync per element: ``max(t)``, ``min(t)``, ``sorted(t)``, ``any(t)``, ``all(t)`` (not
``sum(t)``: it adds on the device)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.bindings import ARITHMETIC_UPDATES
from h2dlint.analysis.builtin_walks import compared_values
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame, frame_at
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.value_syncs import explicit_sync, value_where

ELEMENT_BUILTINS = frozenset({"max", "min", "sorted", "any", "all"})
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide)


def device_accumulator(
    provenance: Provenance,
    read: cst.Call,
    ancestors: Sequence[cst.CSTNode],
    frame: Frame,
) -> cst.Name | None:
    """The device tensor that the number read by ``read`` (visited, with ``ancestors``) is
    added into in place, or ``None``."""
    child: cst.CSTNode = read
    for parent in reversed(ancestors):
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _ARITHMETIC):
            child = parent
            continue
        target: cst.BaseExpression | None = None
        if isinstance(parent, cst.AugAssign) and parent.value is child:
            if isinstance(parent.operator, ARITHMETIC_UPDATES):
                target = parent.target
        elif isinstance(parent, cst.Assign) and parent.value is child and len(parent.targets) == 1:
            name = parent.targets[0].target
            if isinstance(child, cst.BinaryOperation) and _mentions(child, name):
                target = name
        if not isinstance(target, cst.Name):
            return None
        return target if _on_device(provenance, target.value, frame, ancestors) else None
    return None


def _mentions(node: cst.BinaryOperation, name: cst.BaseExpression) -> bool:
    if not isinstance(name, cst.Name):
        return False
    sides = (node.left, node.right)
    return any(
        (isinstance(s, cst.Name) and s.value == name.value)
        or (isinstance(s, cst.BinaryOperation) and _mentions(s, name))
        for s in sides
    )


def _on_device(
    provenance: Provenance, name: str, frame: Frame, ancestors: Sequence[cst.CSTNode]
) -> bool:
    """Every binding of ``name`` in ``frame`` is a device tensor, an in-place update of it, or
    (``nonlocal``) a binding in the enclosing function of the same kind; at least one is."""
    if not isinstance(frame.function, cst.FunctionDef):
        return False
    bindings = provenance.bindings(frame).values.get(name, [])
    found = False
    for binding in bindings:
        statement = binding.statement
        small = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
        if any(isinstance(s, cst.AugAssign) for s in small):
            continue  # ``name += ...``: an in-place update keeps the tensor where it is
        if any(isinstance(s, cst.Nonlocal) for s in small):
            outer = _enclosing(frame.function, ancestors)
            if outer is None or not _on_device(provenance, name, outer, ancestors):
                return False
            found = True
            continue
        value = binding.value
        if isinstance(value, cst.BinaryOperation) and _mentions(value, cst.Name(name)):
            continue  # ``name = name + ...``
        if value is None or value_where(provenance, value, frame) is not Where.DEVICE:
            return False
        found = True
    return found


def _enclosing(function: cst.FunctionDef, ancestors: Sequence[cst.CSTNode]) -> Frame | None:
    """The frame of the function around ``function`` (a nested function), if any."""
    seen = False
    for i in range(len(ancestors) - 1, -1, -1):
        node = ancestors[i]
        if node is function:
            seen = True
            continue
        if seen and isinstance(node, cst.FunctionDef):
            return frame_at(ancestors, i)
        if seen and isinstance(node, cst.ClassDef):
            return None
    return None


def compared_elements(call: cst.Call, qualified: str) -> tuple[cst.BaseExpression, str] | None:
    """``max(x)`` (one of :data:`ELEMENT_BUILTINS`, not shadowed, one positional argument and
    no ``key=``): the iterated value and the builtin's name; else None."""
    func = call.func
    if not isinstance(func, cst.Name) or func.value not in ELEMENT_BUILTINS:
        return None
    if qualified not in ("", func.value, f"builtins.{func.value}") or len(call.args) != 1:
        return None
    arg = call.args[0]
    if arg.keyword is not None or arg.star:
        return None
    return arg.value, func.value


def compared_reads(call: cst.Call, qualified: str) -> list[tuple[cst.BaseExpression, str, str]]:
    """What a builtin that compares on the host reads, as ``(tensor, what, kind)`` for HTD202:
    ``max(x)`` walks ``x`` (:func:`compared_elements`, kind ``elements``); ``max(s, best)``
    compares its values (:func:`~h2dlint.analysis.builtin_walks.compared_values`, each operand
    that is no explicit read itself, kind ``read``). Empty for other calls."""
    walked = compared_elements(call, qualified)
    if walked is not None:
        what = f"`{walked[1]}()` of {{}} (Python compares its elements one by one)"
        return [(walked[0], what, "elements")]
    func = call.func
    if not isinstance(func, cst.Name) or qualified not in (
        "",
        func.value,
        f"builtins.{func.value}",
    ):
        return []
    what = f"`{func.value}()` of {{}} and other values (Python compares them)"
    return [
        (operand, what, "read")
        for operand in compared_values(call)
        if not (isinstance(operand, cst.Call) and explicit_sync(operand) is not None)
    ]

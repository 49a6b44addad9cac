"""Names that hold an ``int`` by how they are bound: the variable of a ``for ... in
range(...)`` loop (or the counter of ``enumerate``), a parameter some ``range()`` of the function
takes, and the names a size is unpacked into (``b, n, d = x.shape``). Split out of
``host_data.py`` (its ``host_scalar`` asks them)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.names import calls_in


def shape_unpacked(statement: cst.CSTNode, name: str) -> bool:
    """``b, h, n, d = v.shape`` (or ``= v.size()``): each name is an ``int`` of the size
    (session 24: neuralforecast's Informer divided by such a length)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return any(_unpacks_size(small, name) for small in statement.body)


def _unpacks_size(statement: cst.BaseSmallStatement, name: str) -> bool:
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return False
    target, value = statement.targets[0].target, statement.value
    if not isinstance(target, (cst.Tuple, cst.List)):
        return False
    sized = (isinstance(value, cst.Attribute) and value.attr.value == "shape") or (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "size"
        and not value.args
    )
    return sized and any(
        isinstance(e, cst.Element) and isinstance(e.value, cst.Name) and e.value.value == name
        for e in target.elements
    )


def range_bound(frame: Frame, name: str) -> bool:
    """``range(name)`` or ``range(..., name)`` somewhere in the function: ``name`` counts
    steps, an ``int``."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    for call in calls_in(function):
        if (
            isinstance(call.func, cst.Name)
            and call.func.value == "range"
            and any(isinstance(a.value, cst.Name) and a.value.value == name for a in call.args)
        ):
            return True
    return False


def range_target(statement: cst.CSTNode, name: str) -> bool:
    """``for name in range(...)``, or the counter of ``for name, item in enumerate(...)``."""
    if not (
        isinstance(statement, cst.For)
        and isinstance(statement.iter, cst.Call)
        and isinstance(statement.iter.func, cst.Name)
    ):
        return False
    target, counted = statement.target, statement.iter.func.value
    if counted == "range":
        return isinstance(target, cst.Name) and target.value == name
    if counted != "enumerate" or not isinstance(target, cst.Tuple) or not target.elements:
        return False
    first = target.elements[0].value
    return isinstance(first, cst.Name) and first.value == name

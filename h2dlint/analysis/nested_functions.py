"""Which functions are defined inside other functions (closures, local helpers)."""

from __future__ import annotations

import libcst as cst

# The fields of compound statements that hold statements (a function is defined only by a
# statement: expressions cannot hold one).
_STATEMENT_FIELDS = ("body", "orelse", "handlers", "finalbody", "cases")


def nested_functions(module: cst.Module) -> dict[cst.FunctionDef, cst.FunctionDef]:
    """Each function defined inside another function (also in a class inside it) -> the
    function it is defined in. Walks statements only, not the expressions that make up most
    of a tree."""
    parents: dict[cst.FunctionDef, cst.FunctionDef] = {}
    stack: list[tuple[cst.CSTNode, cst.FunctionDef | None]] = [(module, None)]
    while stack:
        node, function = stack.pop()
        if node.__class__ is cst.FunctionDef:  # not isinstance: see walk.node_classes
            assert isinstance(node, cst.FunctionDef)
            if function is not None:
                parents[node] = function
            function = node
        for name in _STATEMENT_FIELDS:
            value = getattr(node, name, None)
            if value is None:
                continue
            if isinstance(value, (list, tuple)):
                stack.extend((child, function) for child in value)
            elif isinstance(value, cst.CSTNode):
                stack.append((value, function))
    return parents


_KEPT: dict[int, tuple[cst.Module, dict[cst.FunctionDef, cst.FunctionDef]]] = {}


def enclosing_function(module: cst.Module, function: cst.FunctionDef) -> cst.FunctionDef | None:
    """The function ``function`` is defined in (its closure's free names are read there), by
    :func:`nested_functions` of ``module`` computed once per module (the last one asked)."""
    kept = _KEPT.get(id(module))
    if kept is None or kept[0] is not module:
        _KEPT.clear()
        kept = _KEPT[id(module)] = (module, nested_functions(module))
    return kept[1].get(function)

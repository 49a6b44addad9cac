"""Helpers of the project that read their tensor argument to the host: every ``return`` of
the function is ``.item()``/``.tolist()`` (or ``float(...)``/``int(...)`` of one) of that
parameter or of a value made from it (``funcol.all_reduce(x, ...).item()``, ``x.sum().item()``),
or the result of another such helper called with it (``return _reduce(x, "sum")``).

A call of one from another module on a per-step path syncs the host just like ``.item()``
written there (``global_tokens = dist_utils.dist_sum(local_tokens, mesh)`` in a training step):
the rule that reports host reads asks :func:`synced_argument` for the argument the call reads,
and judges it with what the caller knows of it. (A helper of the caller's own module is hot
through the call, and its read is reported in it, with what its callers pass: see
:mod:`~h2dlint.analysis.argument_flow`.)
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import positional
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.sync_basics import SYNC_BUILTINS, SYNC_METHODS
from h2dlint.imports import statements

# Helpers followed through helpers (``dist_sum`` -> ``_dist_reduce``).
MAX_DEPTH = 3


def synced_argument(
    source: FactSource, call: cst.Call, frame: Frame
) -> tuple[cst.BaseExpression, str] | None:
    """The argument ``call`` passes for the parameter that the project function it calls
    reads to the host in every ``return``, and that function's name; None when it is no such
    call."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in SYNC_METHODS:
        return None
    project = source.project
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    if project is None or not isinstance(name, str) or not project.may_define_syncing_helper(name):
        return None  # no module of the project defines such a helper: nothing to parse
    function = frame.function
    if isinstance(function, cst.FunctionDef) and _synced_parameter(source, function, 0):
        return None  # a syncing helper itself: its callers are where the read is reported
    found = source.callee(call, frame)
    if found is None or found[0] is source:
        return None  # a helper of this module is hot through this call: its read is reported
    other, function = found
    param = _synced_parameter(other, function, 0)
    if param is None:
        return None
    argument = _argument_for(call, function, other.index.frame_of(function), param)
    return (argument, function.name.value) if argument is not None else None


def _synced_parameter(source: FactSource, function: cst.FunctionDef, depth: int) -> str | None:
    """The parameter every ``return`` of ``function`` reads to the host, or None."""
    if depth > MAX_DEPTH or _generator(function):
        return None
    frame = source.index.frame_of(function)
    names = _parameters(function, frame)
    found: str | None = None
    returns = [
        s for s in statements(function.body, into_definitions=False) if isinstance(s, cst.Return)
    ]
    if not returns:
        return None
    for statement in returns:
        if statement.value is None:
            return None
        read = _read_parameter(source, statement.value, frame, names, depth)
        if read is None or (found is not None and read != found):
            return None
        found = read
    if found is None or not _derived_only(source, function, frame, found):
        return None
    return found


def _read_parameter(
    source: FactSource,
    value: cst.BaseExpression,
    frame: Frame,
    names: list[str],
    depth: int,
) -> str | None:
    """The parameter ``value`` reads to the host: ``p.item()``, ``f(p, ...).item()``,
    ``float(p.item())``, ``helper(p, ...)`` of a syncing helper."""
    if isinstance(value, cst.Call):
        func = value.func
        if isinstance(func, cst.Name) and func.value in SYNC_BUILTINS and len(value.args) == 1:
            inner = value.args[0].value
            if isinstance(inner, cst.Call):
                return _read_parameter(source, inner, frame, names, depth)
            return None
        if isinstance(func, cst.Attribute) and func.attr.value in SYNC_METHODS and not value.args:
            return _root_parameter(func.value, names)
        found = source.callee(value, frame)
        if found is None:
            return None
        other, helper = found
        param = _synced_parameter(other, helper, depth + 1)
        if param is None:
            return None
        argument = _argument_for(value, helper, other.index.frame_of(helper), param)
        return _root_parameter(argument, names) if argument is not None else None
    return None


def _root_parameter(node: cst.BaseExpression, names: list[str]) -> str | None:
    """The parameter a value is made from: the name itself, a method of it (``p.sum()``,
    ``p.full_tensor()``), a subscript of it, or the first argument of a function
    (``funcol.all_reduce(p, ...)``)."""
    for _ in range(8):
        if isinstance(node, cst.Name):
            return node.value if node.value in names else None
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call):
            func = node.func
            base = func.value if isinstance(func, cst.Attribute) else None
            if base is not None and not (isinstance(base, cst.Name) and base.value not in names):
                node = base  # a method of the value (``p.sum()``, ``f(p).item()``)
            else:
                args = positional(node)
                if not args:
                    return None
                node = args[0].value
        else:
            return None
    return None


def _derived_only(source: FactSource, function: cst.FunctionDef, frame: Frame, name: str) -> bool:
    """Whether every binding of ``name`` in ``function`` is the parameter or is made from
    ``name`` itself (``x = x.full_tensor()``, ``x = all_reduce(x, ...)``)."""
    for value in source.bindings(frame).of(name):
        if value is None:
            continue  # the parameter (and targets that cannot be named: left as they are)
        if _root_parameter(value, [name]) != name:
            return False
    return True


def _parameters(function: cst.FunctionDef, frame: Frame) -> list[str]:
    params = function.params
    names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    return [n for n in names if n != frame.self_name]


def _argument_for(
    call: cst.Call, function: cst.FunctionDef, frame: Frame, param: str
) -> cst.BaseExpression | None:
    """The argument ``call`` passes for ``function``'s parameter ``param``."""
    params = function.params
    ordered = [p.name.value for p in (*params.posonly_params, *params.params)]
    if frame.self_name is not None and ordered and ordered[0] == frame.self_name:
        ordered = ordered[1:]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    args = positional(call)
    if param in ordered and ordered.index(param) < len(args):
        if any(a.star for a in call.args[: ordered.index(param) + 1]):
            return None
        return args[ordered.index(param)].value
    return None


def _generator(function: cst.FunctionDef) -> bool:
    return any(
        isinstance(s, cst.Expr) and isinstance(s.value, (cst.Yield, cst.Await))
        for s in statements(function.body, into_definitions=False)
    )

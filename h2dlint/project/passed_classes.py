"""Parameters typed by the objects their module's callers pass: ``decode_strategy`` of
``self._translate_batch_with_strategy(batch, decode_strategy)`` where the caller made
``decode_strategy = GreedySearch(...)`` (or ``BeamSearch(...)`` in another branch) holds those
classes, so ``decode_strategy.update_finished()`` in the callee may run either class's method.

The project index's receivers (:func:`h2dlint.project.call_edges._typed_receivers`) knew a
parameter's class only by its annotation; a strategy, sampler or scheduler object the caller
builds and hands on was of no known class. Read per module with CPython's ``ast``: the calls of
the module's own functions by name (``helper(x)``) and of its classes' methods through
``self``/``cls`` (``self.run(x)`` of a method the class defines), at any depth of the callers'
bodies. A parameter gets the classes of what its callers pass there (a union: each class's
method may run), when the argument is a receiver whose class the caller knows (a local made
by ``Cls(...)``, ``self.attr`` of ``self.attr = Cls(...)``, an annotated parameter, an object
made in the call (``helper(x, strategy=GreedySearch())``); not a
parameter typed this way itself: one level). A parameter the function assigns is left out (it
may hold anything after), as is one that is annotated (the annotation says it).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from h2dlint.project.ast_walk import function_nodes

_Function = ast.FunctionDef | ast.AsyncFunctionDef
# (name, class or None) of a top-level function or a method of a top-level class.
_Key = tuple[str, str | None]
Receivers = dict[str, list[str]]


def passed_classes(
    functions: list[tuple[_Function, str | None]],
    receivers: list[Receivers],
    static: Callable[[_Function], bool],
    made: Callable[[ast.expr], list[str]],
) -> list[Receivers]:
    """Per function of ``functions`` (with ``receivers``, its own typed receivers, in the same
    order), the receivers its parameters get from the module's calls of it (see the module
    docs), added to a copy of its own; ``static``: whether a method is a ``staticmethod``;
    ``made``: the classes an argument makes in place (``helper(GreedySearch(...))``)."""
    by_key: dict[_Key, int] = {(f.name, cls): i for i, (f, cls) in enumerate(functions)}
    found: list[dict[str, list[str]]] = [{} for _ in functions]
    for i, (function, cls) in enumerate(functions):
        own = _self_name(function, cls, static)
        for node in function_nodes(function):
            if type(node) is not ast.Call:
                continue
            target = _target(node.func, cls, own, by_key)
            if target is None:
                continue
            callee, _ = functions[target]
            method = functions[target][1] is not None and not static(callee)
            for parameter, argument in _bound(node, callee, method):
                classes = _classes_of(argument, receivers[i]) or made(argument)
                if classes:
                    held = found[target].setdefault(parameter, [])
                    held.extend(c for c in classes if c not in held)
    typed: list[Receivers] = []
    for (function, _), own_receivers, passed in zip(functions, receivers, found, strict=True):
        if not passed:
            typed.append(own_receivers)
            continue
        assigned = _assigned_names(function)
        merged = dict(own_receivers)
        for parameter, classes in passed.items():
            if parameter not in merged and parameter not in assigned:
                merged[parameter] = classes
        typed.append(merged)
    return typed


def _self_name(function: _Function, cls: str | None, static: Callable[[_Function], bool]) -> str:
    positional = [*function.args.posonlyargs, *function.args.args]
    if cls is None or not positional or static(function):
        return ""
    return positional[0].arg


def _target(func: ast.expr, cls: str | None, own: str, by_key: dict[_Key, int]) -> int | None:
    """The function of the module a call's function names: ``helper`` (a top-level
    function), ``self.method`` (a method of the caller's own class)."""
    if isinstance(func, ast.Name):
        return by_key.get((func.id, None))
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and own
        and func.value.id == own
    ):
        return by_key.get((func.attr, cls))
    return None


def _bound(call: ast.Call, callee: _Function, method: bool) -> Iterable[tuple[str, ast.expr]]:
    """(parameter, argument) for each argument of ``call`` bound to a named parameter of
    ``callee`` (``method``: its first parameter is the object, not passed)."""
    arguments = callee.args
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
    if method:
        positional = positional[1:]
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred) or position >= len(positional):
            break
        yield positional[position], argument
    names = {a.arg for a in arguments.args} | {a.arg for a in arguments.kwonlyargs}
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg in names:
            yield keyword.arg, keyword.value


def _classes_of(argument: ast.expr, receivers: Receivers) -> list[str]:
    """The classes the caller knows ``argument`` holds (a receiver of its own)."""
    parts: list[str] = []
    node: ast.expr = argument
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return []
    parts.append(node.id)
    return receivers.get(".".join(reversed(parts)), [])


def _assigned_names(function: _Function) -> set[str]:
    """The names the function's body binds (assignments, loop targets, ``with ... as``)."""
    found: set[str] = set()
    for node in function_nodes(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
    return found

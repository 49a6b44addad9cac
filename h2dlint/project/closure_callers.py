"""Callers in another module that are closures installed as a per-step method.

Model patching code defines the replacement ``forward`` inside a set-up function and installs
it on a class or an object::

    def _install_packed_block(block_cls):                 # mamba.py
        forward = block_cls.__dict__["forward"]

        def packed_block_forward(self, hidden_states, position_ids=None):
            seq_idx = packed_seq_idx(position_ids)        # llm_packing.py, another module
            ...

        block_cls.forward = packed_block_forward

The closure runs on every forward pass of the block (its name says so; the file's own
analysis judges it so, :mod:`h2dlint.analysis.installed_closures`), but the callers index
records the calls of a function's nested functions as the enclosing function's
(``_install_packed_block``, a set-up function): a helper in another module that only the
closure calls had no hot caller (agilerl 2.50.0's ``packed_seq_idx``, whose
``bool(seq_idx[:, -1].any())`` waited on the device once per decoder block; 2.58 memoizes it
per forward). This module adds, for each caller found by the index, the closures of it that
the enclosing function hands out (returns, or stores on an attribute) and that call the
function's name, as callers of their own: the walk then judges each by its own name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from h2dlint.project.ast_walk import function_nodes
from h2dlint.project.caller_scans import Caller
from h2dlint.project.summary import top_functions


class _Callers(Protocol):
    """What this module reads of ``callers.CallerIndex`` (a protocol, not an import)."""

    def tree_part(self, module: str, name: str, compute: Callable[[Any], Any]) -> Any: ...


def _last_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _handed_out(function: ast.AST) -> set[str]:
    """Names ``function``'s statements (its nested functions' too) return or store on an
    attribute (``cls.forward = fn``, ``return fn``, ``module.forward = MethodType(fn, m)``)."""
    found: set[str] = set()
    for node in function_nodes(function):
        if isinstance(node, ast.Return) and node.value is not None:
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) for t in node.targets
        ):
            values = [node.value]
        else:
            continue
        for value in values:
            if isinstance(value, ast.Call) and value.args:  # MethodType(fn, m), partial(fn, ...)
                value = value.args[0]
            if isinstance(value, ast.Name):
                found.add(value.id)
    return found


def installed_closures(tree: ast.Module) -> list[list[Any]]:
    """Per top-level function or method (name, class or None), the nested functions it hands
    out, each with the last names it calls and the line of the first such call: the summary
    part ``closures``, a JSON value."""
    found: list[list[Any]] = []
    for function, cls in top_functions(tree):
        nested = [
            node
            for node in function_nodes(function)
            if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        if not nested:
            continue
        handed = _handed_out(function)
        closures: list[list[Any]] = []
        for closure in nested:
            if closure.name not in handed:
                continue
            calls: dict[str, int] = {}
            for node in function_nodes(closure):
                if isinstance(node, ast.Call):
                    name = _last_name(node.func)
                    if name is not None and name not in calls:
                        calls[name] = node.lineno
            if calls:
                closures.append([closure.name, calls])
        if closures:
            found.append([function.name, cls, closures])
    return found


def with_closures(
    index: _Callers,
    qualified: str,
    callers: Iterable[Caller],
    hot: Callable[[str], bool],
) -> Iterator[Caller]:
    """``callers`` (the index's callers of ``qualified``, read lazily), each followed by its
    installed closures that call ``qualified``'s name and whose own name is hot
    (``hot(name)``)."""
    name = qualified.rpartition(".")[2]
    for caller in callers:
        yield caller
        raw = index.tree_part(caller.module, "closures", installed_closures)
        for function, cls, closures in raw or ():
            if function != caller.name or cls != caller.cls:
                continue
            for closure, calls in closures:
                if name in calls and hot(closure):
                    where = f"{caller.qualified}.{closure}"
                    yield Caller(caller.module, where, closure, None, calls[name])

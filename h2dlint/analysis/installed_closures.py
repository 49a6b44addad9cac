"""Closures a factory hands out to be run later: a function defined inside another and
returned by it (``def get_attention_forward(cfg): def forward(self, x): ...; return forward``)
or installed on an object (``module.forward = types.MethodType(forward, module)``,
``obj.step = step``).

Such a closure runs when whoever got it calls it, not when its factory runs (once, at model
set-up), so it is not as hot as its factory: it is judged by its own name, like a top-level
function (:mod:`h2dlint.analysis.hot_paths`). Model patching code (sharded or sequence-parallel
replacements of a model's attention ``forward``, cache and offload wrappers) builds its
per-step code this way. A closure only called inside its factory stays as hot as the factory.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.imports import dotted_name
from h2dlint.walk import content_children

# Wrappers that bind or wrap a function and return something that runs it.
_BINDERS = frozenset({"MethodType", "types.MethodType", "partial", "functools.partial"})


def _function_name(value: cst.BaseExpression) -> str | None:
    """``forward`` for ``forward``, ``types.MethodType(forward, m)`` or ``partial(forward,
    cfg)``; None for anything else."""
    if isinstance(value, cst.Name):
        return value.value
    if isinstance(value, cst.Call) and value.args and (dotted_name(value.func) or "") in _BINDERS:
        first = value.args[0].value
        if isinstance(first, cst.Name):
            return first.value
    return None


def _handed_out(parent: cst.FunctionDef) -> tuple[set[str], set[str]]:
    """Names of functions ``parent``'s own statements return or store on an attribute, and
    names they pass to a call (``bind_forward_method(module, forward, "_orig")``)."""
    found: set[str] = set()
    passed: set[str] = set()
    stack: list[cst.CSTNode] = [parent.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue  # another scope's returns
        if isinstance(node, cst.Call):
            passed.update(n for a in node.args if (n := _function_name(a.value)))
        if isinstance(node, cst.Return) and node.value is not None:
            values = (
                [e.value for e in node.value.elements]
                if isinstance(node.value, cst.Tuple)
                else [node.value]
            )
            found.update(n for n in map(_function_name, values) if n)
        elif isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Attribute) for t in node.targets
        ):
            name = _function_name(node.value)
            if name:
                found.add(name)
        stack.extend(content_children(node))
    return found, passed


def installed_closures(
    parents: dict[cst.FunctionDef, cst.FunctionDef],
) -> dict[cst.FunctionDef, bool]:
    """Each nested function its enclosing function returns or stores on an attribute -> whether
    it is written as a method (a first parameter ``self``: it is bound to a module and runs
    as its method)."""
    handed: dict[cst.FunctionDef, tuple[set[str], set[str]]] = {}
    found: dict[cst.FunctionDef, bool] = {}
    for function, parent in parents.items():
        if parent not in handed:
            handed[parent] = _handed_out(parent)
        stored, passed = handed[parent]
        params = function.params.params
        method = bool(params) and params[0].name.value == "self"
        # A method-to-be passed to a call is bound there (``bind_forward_method(m, forward)``,
        # ``setattr(m, "forward", MethodType(forward, m))``); any other closure passed to a
        # call (``map(f, xs)``, ``checkpoint(f, x)``) runs inside its factory, as hot as it.
        if function.name.value in stored or (method and function.name.value in passed):
            found[function] = method
    return found

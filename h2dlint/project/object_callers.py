"""Calls of objects resolved to their class's ``forward``/``__call__``: the callers of a torch
module's ``forward`` (or any class's ``__call__``) that Python runs through a call of the object
(``self.safety_checker(images=...)``, ``self.vocoder(mel)``, ``model = Cls(...); model(x)``),
which :meth:`CallerIndex.callers` does not find (it resolves ``obj.method(...)`` only).

A call of an object counts when its receiver's class is known to the module (as for the call
edges, :func:`call_edges.function_receivers`): an attribute assigned a construction or an
alternate constructor (``self.x = Cls.from_pretrained(...)``), a parameter or attribute typed by
an annotation, a local built from the class, and an attribute registered from an annotated
parameter (diffusers' pipelines: ``safety_checker: StableDiffusionSafetyChecker`` in
``__init__``, then ``self.register_modules(safety_checker=safety_checker)``).

The callers are *all* known only where no object of the class escapes: every module whose text
names the class is read (at most :data:`MAX_MODULES`), and none may let an object of it escape
(:mod:`h2dlint.project.instance_escapes`: made in a list, passed on, returned, subclassed). The
answer is None otherwise (the callers are not known), and an empty list where no module calls
an object of it (the package's users do: no proof of anything). Each answer is kept per caller
index, with the modules it rests on (recorded as consulted by every question that reuses it).
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass
from typing import Any

from h2dlint.project.ast_walk import function_nodes
from h2dlint.project.call_edges import _annotated_classes, function_receivers, module_names
from h2dlint.project.call_resolution import defining_module
from h2dlint.project.caller_scans import Caller
from h2dlint.project.callers import CallerIndex
from h2dlint.project.passed_args import object_escapes
from h2dlint.project.passed_sites import defined_name, naming_modules
from h2dlint.project.remembered import remembered
from h2dlint.project.summary import Parts, dotted

# Modules naming a class read at most before its objects' callers are "not known" (diffusers'
# safety checker is named by about 60 pipeline modules).
MAX_MODULES = 80
# What runs a call more than once per call of its function, or at another time.
REPEATING: tuple[type[ast.AST], ...] = (ast.For, ast.AsyncFor, ast.While, ast.ListComp)
REPEATING += (ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)
REPEATING += (ast.FunctionDef, ast.AsyncFunctionDef)
_REGISTER = "register_modules"


@dataclass(frozen=True)
class ObjectCall:
    """A call of an object of the class asked about, and whether its function may run it
    more than once per call of its own (in a loop, a comprehension, a closure)."""

    caller: Caller
    looped: bool


def object_calls(tree: ast.Module) -> Parts:
    """The summary part ``object_calls``: ``calls``, per call of an object whose class the
    module names, ``[class as a callee prefix, function, class or None, line, looped]``; and
    ``bases`` (class -> its bases as written) and ``imports`` (local name -> imported name)."""
    names = module_names(tree)
    registered = _registered(tree, names.roots, names.classes)
    calls: list[list[Any]] = []
    for function, cls, receivers in function_receivers(tree, names):
        positional = [*function.args.posonlyargs, *function.args.args]
        extra = registered.get(cls, {}) if cls is not None and positional else {}
        own = positional[0].arg if extra else ""
        looped = _repeated_calls(function)
        for node in function_nodes(function):
            if type(node) is not ast.Call:
                continue
            written = dotted(node.func)
            if written is None:
                continue
            found = receivers.get(written)
            if found is None and own and written.startswith(own + "."):
                found = extra.get(written[len(own) + 1 :])
            for prefix in found or ():
                calls.append([prefix, function.name, cls, node.lineno, id(node) in looped])
    bases = {
        node.name: [name for name in map(dotted, node.bases) if name is not None]
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    return {"calls": calls, "bases": bases, "imports": dict(names.imports)}


def _repeated_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The ids of the calls of ``function`` in one of its loops (a ``for`` loop's iterable
    aside), comprehensions or closures."""
    found: set[int] = set()
    for node in function_nodes(function):
        if node is function or not isinstance(node, REPEATING):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor)):
            parts: list[ast.AST] = [*node.body, *node.orelse]
        else:
            parts = [node]
        for part in parts:
            found.update(id(n) for n in ast.walk(part) if type(n) is ast.Call)
    return found


def _registered(
    tree: ast.Module, roots: set[str], classes: set[str]
) -> dict[str, dict[str, list[str]]]:
    """Per class, the attributes ``self.register_modules(name=param)`` sets from a parameter
    annotated with a class (diffusers' pipelines), as callee prefixes."""
    found: dict[str, dict[str, list[str]]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for member in node.body:
            if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            arguments = [*member.args.posonlyargs, *member.args.args, *member.args.kwonlyargs]
            typed = {
                a.arg: _annotated_classes(a.annotation, roots, classes)
                for a in arguments[1:]
                if a.annotation is not None
            }
            if not typed or not arguments:
                continue
            for call in ast.walk(member):
                if not (
                    isinstance(call, ast.Call)
                    and dotted(call.func) == f"{arguments[0].arg}.{_REGISTER}"
                ):
                    continue
                for keyword in call.keywords:
                    value = keyword.value
                    if keyword.arg and isinstance(value, ast.Name) and typed.get(value.id):
                        found.setdefault(node.name, {})[keyword.arg] = typed[value.id]
    return found


# Per caller index: class (qualified) -> its objects' calls (None: not all known), and the
# modules (path -> digest) the answer rests on.
_MEMO: weakref.WeakKeyDictionary[
    CallerIndex, dict[str, tuple[list[ObjectCall] | None, dict[str, str]]]
] = weakref.WeakKeyDictionary()


def object_callers(index: CallerIndex, cls_qualified: str) -> list[ObjectCall] | None:
    """The calls of objects of the project class ``cls_qualified`` (``pkg.mod.Cls``) in every
    module of the project, each with the function that makes it; None when they are not all
    known (see the module)."""
    memo = _MEMO.setdefault(index, {})
    return remembered(
        memo, cls_qualified, index.project, lambda: _object_callers(index, cls_qualified)
    )


def _object_callers(index: CallerIndex, cls_qualified: str) -> list[ObjectCall] | None:
    project = index.project
    home = defining_module(cls_qualified + ".forward", project)
    naming = naming_modules(index, cls_qualified.rpartition(".")[2], MAX_MODULES)
    if naming is None:
        return None
    homes: dict[str, str | None] = {}
    found: list[ObjectCall] = []
    for module in naming:
        if module != home:
            index.consult(module)
        part = index.tree_part(module, "object_calls", object_calls)
        kept = index.tree_part(module, "escapes", object_escapes)
        if part is None or kept is None:
            return None

        def absolute(written: str, module: str = module, part: Any = part) -> str | None:
            return defined_name(written, module, part, project, homes)

        if any(absolute(written) in (cls_qualified, None) for written in kept["escapes"]):
            return None  # an object of it made in a list, passed on, returned, subclassed
        for prefix, name, owner, line, looped in part["calls"]:
            if absolute(prefix) != cls_qualified:
                continue
            qualified = f"{module}.{owner}.{name}" if owner else f"{module}.{name}"
            bases = tuple(part["bases"].get(owner, ())) if owner else ()
            caller = Caller(module, qualified, name, owner, line, bases)
            found.append(ObjectCall(caller, looped))
    return found


__all__ = ["ObjectCall", "object_callers", "object_calls"]

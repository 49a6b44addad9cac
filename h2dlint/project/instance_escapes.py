"""Which classes a module lets escape, for argument flow into a module's ``forward``
(:func:`~h2dlint.project.passed_sites.instance_sites`): a part of the ``passes`` summary
(:mod:`h2dlint.project.passed_args`), read with CPython's ``ast``.

An ``nn.Module``'s ``forward`` is called through the object (``self.sampler(logits, meta)``:
``__call__`` runs it with the same arguments), so its calls are those of the objects of its
class. They are all known in a module only while each object stays where it was made:

- every construction of the class (``Sampler(device)``, ``Cls.from_config(...)``) is the value
  of a plain assignment to a local name or to an attribute of ``self`` (a holder);
- every other mention of the class is an annotation or the class tested by ``isinstance``;
- a holder is only called, read an attribute of (``self.sampler.to(device)``) or assigned.

A class mentioned otherwise escapes: made inside a list or ``nn.Sequential`` (called by
iterating), passed to a function (``torch.compile``, a trainer, a wrapper such as
``DataParallel``), returned, subclassed (a subclass may inherit ``forward``, or call it through
``super()``), stored elsewhere. Its ``forward`` has callers the project's text does not show
then, and argument flow leaves its parameters unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from h2dlint.project.call_edges import RETURNING_SELF, _class_named
from h2dlint.project.summary import dotted, top_functions

_TESTS = frozenset({"isinstance", "issubclass"})


def escaping_classes(
    tree: ast.Module, roots: set[str], classes: set[str]
) -> tuple[list[str], list[str]]:
    """The classes (as callee prefixes: an imported dotted name, ``.Cls`` for the module's
    own) that escape in ``tree`` (see the module's docstring), and those it makes into
    holders, each sorted."""
    parents: dict[int, ast.AST] = {}
    mentions: list[ast.Name] = []
    for walked in ast.walk(tree):
        for child in ast.iter_child_nodes(walked):
            parents[id(child)] = walked
        if isinstance(walked, ast.Name) and (walked.id in roots or walked.id in classes):
            mentions.append(walked)
    if not mentions:
        return [], []
    annotations = _annotation_nodes(tree)
    escaped: set[str] = set()
    held: dict[tuple[str, ...], list[str]] = {}  # holder -> the classes made into it
    for name in mentions:
        node: ast.AST = name
        while isinstance(parents.get(id(node)), ast.Attribute):
            node = parents[id(node)]  # the longest dotted name is the mention
        if id(node) in annotations or not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        found = _class_named(dotted(node), roots, classes)
        if not found:
            continue
        parent = parents.get(id(node))
        holder = _holder(node, parent, parents)
        if holder is not None:
            held.setdefault(holder, []).extend(found)
        elif not _tested(node, parent, parents):
            escaped.update(found)
    if held:
        for holder in _escaping_holders(tree, held, parents):
            escaped.update(held.get(holder, ()))
    made = {name for names in held.values() for name in names}
    return sorted(escaped), sorted(made)


def _annotation_nodes(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        parts: list[ast.expr | None] = []
        if isinstance(node, (ast.arg, ast.AnnAssign)):
            parts.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts.append(node.returns)
        for part in parts:
            if part is not None:
                found.update(id(n) for n in ast.walk(part))
    return found


def _holder(
    node: ast.AST, parent: ast.AST | None, parents: dict[int, ast.AST]
) -> tuple[str, ...] | None:
    """The holder a construction ``node(...)`` is assigned to: ``("self", cls, attr)`` (the
    enclosing class's name stands for it) or ``("name", function, name)``; None otherwise."""
    if not (isinstance(parent, ast.Call) and parent.func is node):
        return None
    while True:  # ``Cls(...).to(device)``: the same object
        method = parents.get(id(parent))
        call = parents.get(id(method)) if method is not None else None
        if not (
            isinstance(method, ast.Attribute)
            and method.attr in RETURNING_SELF
            and isinstance(call, ast.Call)
            and call.func is method
        ):
            break
        parent = call
    statement = parents.get(id(parent))
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target: ast.expr = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign) and statement.value is parent:
        target = statement.target
    else:
        return None
    function, cls = _enclosing(statement, parents)
    if function is None:
        return None  # a module-level object: any module may import and call it
    if isinstance(target, ast.Name):
        return ("name", f"{cls}.{function.name}", target.id)
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and cls is not None
        and _self_name(function) == target.value.id
    ):
        return ("self", cls, target.attr)
    return None


def _enclosing(
    node: ast.AST, parents: dict[int, ast.AST]
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef | None, str | None]:
    """The top-level function or method around ``node``, and its class's name."""
    chain: list[ast.AST] = []
    current: ast.AST | None = node
    while current is not None:
        chain.append(current)
        current = parents.get(id(current))
    chain.reverse()  # the module first
    if len(chain) < 2:
        return None, None
    top = chain[1]
    if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return top, None
    if isinstance(top, ast.ClassDef) and len(chain) > 2:
        member = chain[2]
        if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return member, top.name
    return None, None


def _self_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else None


def _tested(node: ast.AST, parent: ast.AST | None, parents: dict[int, ast.AST]) -> bool:
    """``isinstance(x, Cls)``, ``isinstance(x, (Cls, Other))``."""
    if isinstance(parent, ast.Tuple):
        parent = parents.get(id(parent))
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in _TESTS
        and node is not parent.func
    )


def _escaping_holders(
    tree: ast.Module, held: dict[tuple[str, ...], list[str]], parents: dict[int, ast.AST]
) -> Iterator[tuple[str, ...]]:
    """The holders of ``held`` that their functions use otherwise than by calling them,
    reading an attribute of them or assigning them."""
    attributes = {holder[2] for holder in held if holder[0] == "self"}
    names = {holder[2] for holder in held if holder[0] == "name"}
    for function, cls in top_functions(tree):
        own = _self_name(function) if cls is not None else None
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and node.attr in attributes:
                if not isinstance(node.value, ast.Name) or own is None or node.value.id != own:
                    continue
                holder: tuple[str, ...] = ("self", str(cls), node.attr)
            elif isinstance(node, ast.Name) and node.id in names:
                if not isinstance(node.ctx, ast.Load):
                    continue
                holder = ("name", f"{cls}.{function.name}", node.id)
            else:
                continue
            if holder not in held:
                continue
            parent = parents.get(id(node))
            if isinstance(parent, ast.Call) and parent.func is node:
                continue
            if isinstance(parent, ast.Attribute) and parent.value is node:
                continue
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
                continue
            yield holder

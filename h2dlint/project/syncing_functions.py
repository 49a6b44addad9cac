"""A summary part: the functions of a module that may read a tensor argument to the host in
every ``return`` (``return x.item()``, ``return float(all_reduce(x).item())``), or that return
what other such functions return (``return _dist_reduce(x, "sum")``).

:mod:`h2dlint.analysis.syncing_helpers` answers, with libcst and the facts of the callee's
module, whether a call of another module's function reads its argument to the host. Before it
resolves a call (which may load that module's tree), the index asks this part, read with
CPython's ``ast`` and kept by content digest like the others, whether any definition of the
called name could be such a function: the part is a superset of what the analysis accepts
(every ``return`` is a call of the shapes it reads), so a name it does not list cannot be one.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Iterator

from h2dlint.project.summary import BODIES

# As :data:`h2dlint.analysis.sync_basics.SYNC_METHODS` and ``SYNC_BUILTINS`` (a test keeps them
# equal): the analysis reads a return through these.
SYNC_METHODS = frozenset({"item", "tolist"})
SYNC_BUILTINS = frozenset({"int", "float", "bool", "complex"})
# Text of a read of a tensor to the host: a module without it holds no function that reads
# one itself (one that only delegates to another module's helper is not followed: see
# ``CallerIndex.may_define_syncing_helper``).
SYNC_TEXT = re.compile(rb"\.(?:item|tolist)\(\s*\)")

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def syncing_functions(tree: ast.Module) -> dict[str, list[list[str]]]:
    """Per function name (at any depth, methods included), one entry per definition that may
    read to the host in every ``return``: the names of the functions its returns delegate to
    (empty when each return reads itself). A definition with a ``return`` of anything but a
    call of those shapes, a bare ``return`` or none at all is not listed."""
    found: dict[str, list[list[str]]] = {}
    todo: deque[ast.AST] = deque(tree.body)
    while todo:
        node = todo.popleft()
        todo.extend(_children(node))
        if isinstance(node, _FUNCTIONS):
            delegates = _delegates(node)
            if delegates is not None:
                found.setdefault(node.name, []).append(delegates)
    return found


def _children(node: ast.AST) -> Iterator[ast.AST]:
    for name in BODIES.get(type(node), ()):
        yield from getattr(node, name)


def _delegates(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str] | None:
    names: set[str] = set()
    returns = 0
    for statement in _own_statements(function):
        if not isinstance(statement, ast.Return):
            continue
        returns += 1
        if statement.value is None:
            return None
        read = _read(statement.value)
        if read is None:
            return None
        if read:
            names.add(read)
    return sorted(names) if returns else None


def _own_statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The statements of ``function`` at any depth, not those of the functions and classes
    it defines."""
    todo: deque[ast.AST] = deque(function.body)
    while todo:
        node = todo.popleft()
        yield node
        if not isinstance(node, _DEFINITIONS):
            todo.extend(_children(node))


def _read(value: ast.expr) -> str | None:
    """How a returned value may read to the host: ``""`` by itself (``p.item()``), the name of
    the function it delegates to (``helper(p)``), None when it cannot."""
    for _ in range(8):
        if not isinstance(value, ast.Call):
            return None
        func = value.func
        count = len(value.args) + len(value.keywords)
        if isinstance(func, ast.Name) and func.id in SYNC_BUILTINS and count == 1:
            inner = value.args[0] if value.args else value.keywords[0].value
            value = inner
            continue
        if isinstance(func, ast.Attribute) and func.attr in SYNC_METHODS and count == 0:
            return ""
        if isinstance(func, ast.Attribute):
            return func.attr
        if isinstance(func, ast.Name):
            return func.id
        return None
    return None

"""CPython ``ast`` walks without the cost of ``ast.walk``: ``ast.iter_child_nodes`` runs two
generators per node (its own and ``ast.iter_fields``), which cost more than the walk itself on
the summaries' and steps' passes over whole modules. The same nodes in the same order."""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from weakref import WeakKeyDictionary


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))``."""
    found: list[ast.AST] = []
    node_type = ast.AST
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, node_type):
            found.append(value)
        elif isinstance(value, list):
            found.extend(item for item in value if isinstance(item, node_type))
    return found


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(node)``: ``node`` and every node under it, breadth first."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        todo.extend(child_nodes(node))
        yield node


# Function node -> its nodes in ``walk`` order: the summary parts of one module (the call
# edges, the passed arguments, the classes passed to parameters, the names a function binds)
# each walk every function of it, several times over; the tree is kept while they are computed.
_FUNCTION_NODES: WeakKeyDictionary[ast.AST, tuple[ast.AST, ...]] = WeakKeyDictionary()


def function_nodes(function: ast.AST) -> tuple[ast.AST, ...]:
    """``tuple(walk(function))``, computed once per node object (the tree must not change)."""
    found = _FUNCTION_NODES.get(function)
    if found is None:
        found = _FUNCTION_NODES[function] = tuple(walk(function))
    return found

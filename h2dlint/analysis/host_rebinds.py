"""Which reads of a per-row loop are distinct, and which read only Python values the loop
already took from a row (session 43: HTD201 reports every read of a loop, not only its first,
so a later "read" of a value an earlier read made a Python number must not count).

- :func:`same_read`: a read inside another (``int(t[i].item())``), or the same kind of read
  of the same tensor on the same line, is one finding.
- :func:`host_arithmetic`: ``n = lens[i].item() + 2`` binds a Python number, not a row.
- :func:`read_after_host_rebinding`: ``h = h.item()`` in ``for h, w in sizes:`` makes ``h``
  a Python int for the statements after it (``emb[:h, :w]`` reads nothing).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.names import names_read
from h2dlint.analysis.sync_basics import RowLoop, RowSync
from h2dlint.analysis.value_syncs import explicit_sync
from h2dlint.context import FileContext
from h2dlint.imports import statements
from h2dlint.walk import holds


def same_read(context: FileContext, read: RowSync, kept: RowSync) -> bool:
    """Whether ``read`` is a read already kept: the same node, or one inside the other
    (``int(t[i].item())`` is one read, named by its method), or the same kind of read of the
    same tensor on the same line (``result[:, s:e] += x[:, s:e]`` of ``for s, e in spans``,
    ``t[i].item() if t[i].item() > 0 else 0``): one line to change, one finding, where two
    would carry the same message."""
    if holds(kept.call, read.call) or holds(read.call, kept.call):
        return True
    code = context.module.code_for_node
    return (
        read.what == kept.what
        and code(read.tensor) == code(kept.tensor)
        and context.position(read.call).start.line == context.position(kept.call).start.line
    )


def host_arithmetic(value: cst.BaseExpression, reads: Callable[[cst.BaseExpression], bool]) -> bool:
    """Whether ``value`` is arithmetic whose every operand that ``reads`` a row is a host
    read of it (``lens[i].item() + 2``, ``-int(t[i])``): a Python number."""
    operands: list[cst.BaseExpression] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BinaryOperation):
            stack += [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation):
            stack.append(node.expression)
        else:
            operands.append(node)
    synced = [o for o in operands if isinstance(o, cst.Call) and explicit_sync(o) is not None]
    return bool(synced) and not any(reads(o) for o in operands if o not in synced)


def read_after_host_rebinding(
    context: FileContext, parts: list[cst.CSTNode], sync: RowSync, loop: RowLoop
) -> bool:
    """Whether every row name ``sync`` reads was rebound, by a statement of the loop before
    it, to a host read (``n_tiles_h = n_tiles_h.item()``, then ``emb[:n_tiles_h]``)."""
    rows = set(loop.names) | {name for name, _ in loop.derived}
    names = {name.value for name in names_read(sync.call)} & rows
    if not names:
        return False
    start = context.position(sync.call).start
    for part in parts:
        for small in statements(part, into_definitions=False):
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                continue
            target, value = small.targets[0].target, small.value
            if not isinstance(target, cst.Name) or target.value not in names:
                continue
            if not (isinstance(value, cst.Call) and explicit_sync(value) is not None):
                continue
            end = context.position(small).end
            if (end.line, end.column) <= (start.line, start.column):
                names.discard(target.value)
    return not names

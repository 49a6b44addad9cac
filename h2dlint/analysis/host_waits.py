"""Whether the host waits for the device around a statement anyway: a result read on the host
in the same chain (``x.to(dev).sum().item()``), or the next statement synchronizing
(``torch.cuda.synchronize()``, ``.item()``, ``.tolist()``). HTD105 (a blocking copy from pinned
memory) asks these: where the host waits anyway, a blocking copy costs nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.context import FileContext
from h2dlint.walk import visit_read_only

# Methods whose result is read on the host: the chain waits for the copy anyway.
HOST_READS = frozenset({"item", "tolist", "cpu", "numpy"})


def read_on_host(ancestors: Sequence[cst.CSTNode], node: cst.Call) -> bool:
    """``x.to(dev).sum().item()``: the chain reads the result on the host."""
    current: cst.CSTNode = node
    i = len(ancestors) - 1
    while i >= 1:
        attribute, call = ancestors[i], ancestors[i - 1]
        if not (
            isinstance(attribute, cst.Attribute)
            and attribute.value is current
            and isinstance(call, cst.Call)
            and call.func is attribute
        ):
            return False
        if attribute.attr.value in HOST_READS:
            return True
        current, i = call, i - 2
    return False


# Calls that wait for the device: a statement making one syncs the host anyway.
SYNCS = frozenset({"synchronize", "item", "tolist"})


class _Syncs(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in SYNCS:
            self.found = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def waits_for_device(node: cst.CSTNode) -> bool:
    """Whether a simple statement waits for the device: ``torch.cuda.synchronize()``,
    ``stream.synchronize()``, ``x.item()``, ``x.tolist()``."""
    visitor = _Syncs()
    visit_read_only(node, visitor)
    return visitor.found


def statement_place(context: FileContext, node: cst.Call) -> tuple[cst.CSTNode, int] | None:
    """The innermost statement around ``node`` and, when it is a line of simple statements,
    the 1-based index of the one holding ``node`` (else 0)."""
    statement = context.current_statement()
    if statement is None:
        return None
    if not isinstance(statement, cst.SimpleStatementLine):
        return statement, 0
    ancestors = context.ancestors
    for i in range(len(ancestors) - 1, 0, -1):
        if ancestors[i - 1] is statement:
            small = ancestors[i]
            for index, item in enumerate(statement.body, start=1):
                if item is small:
                    return statement, index
            break
    return statement, 0


def synchronized_next(context: FileContext, node: cst.Call) -> bool:
    """Whether the statement right after the copy waits for the device anyway
    (``synchronize()``, ``.item()``, ``.tolist()``)."""
    place = statement_place(context, node)
    if place is None:
        return False
    statement, small = place
    if isinstance(statement, cst.SimpleStatementLine) and small:
        rest = statement.body[small:]
        if rest:
            return waits_for_device(rest[0])
    ancestors = context.ancestors
    for i in range(len(ancestors) - 1, 0, -1):
        if ancestors[i] is statement:
            block = ancestors[i - 1]
            body = getattr(block, "body", None)
            if not isinstance(body, (list, tuple)):
                return False
            following = list(body)
            position = next((k for k, s in enumerate(following) if s is statement), None)
            if position is None or position + 1 >= len(following):
                return False
            after = following[position + 1]
            return isinstance(after, cst.SimpleStatementLine) and waits_for_device(after)
    return False

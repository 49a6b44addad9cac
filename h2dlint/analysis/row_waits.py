"""What waits in one of HTD201's row reads, for its message (session 45).

HTD201's message names the tensor the loop walks (``crop_regions``); where the read is of a
value the body computed from the row through other statements (``keep_mask = ~near_edge(box,
crop_region)``, then ``if not torch.all(keep_mask):``), the walked tensor is not what the read
copies to the host, and the message should say what is: the tested or read value
(``keep_mask``). A read that mentions the row itself (``x[i].item()``, ``if r.any():``) is
named well enough by the walk."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.sync_basics import RowLoop
from h2dlint.walk import visit_read_only


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _names(node: cst.CSTNode) -> set[str]:
    collector = _Names()
    visit_read_only(node, collector)
    return collector.names


def _operand(read: cst.BaseExpression) -> cst.BaseExpression:
    """The tensor ``read`` copies: ``m`` of ``m.item()``, ``int(m)``, ``torch.all(m)``,
    ``m.any()``, ``m.detach().float().cpu()``, ``m.nonzero(as_tuple=False)``, ``m.sum() > n``
    (a comparison of one call, or of one name with constants); ``read`` itself otherwise."""
    if isinstance(read, cst.UnaryOperation) and isinstance(read.operator, cst.Not):
        return _operand(read.expression)
    if isinstance(read, cst.Comparison):
        operands = [read.left, *(c.comparator for c in read.comparisons)]
        called = [o for o in operands if isinstance(o, cst.Call)]
        if len(called) == 1:
            return _operand(called[0])
        named = [o for o in operands if isinstance(o, (cst.Name, cst.Attribute))]
        return named[0] if len(named) == 1 else read
    if not isinstance(read, cst.Call):
        return read
    func = read.func
    args = [a.value for a in read.args if a.keyword is None and not a.star]
    if isinstance(func, cst.Name):
        return _operand(args[0]) if len(args) == 1 else read  # ``int(m)``, ``bool(m)``
    if not isinstance(func, cst.Attribute):
        return read
    if _torch(func.value):
        return _operand(args[0]) if args else read  # ``torch.all(m)``, ``torch.log(m)``
    return _operand(func.value)  # a method of the tensor: ``m.item()``, ``m.detach().cpu()``


def _torch(node: cst.BaseExpression) -> bool:
    """``torch`` or one of its modules (``torch.linalg``)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value == "torch"


def waiting_value(read: cst.BaseExpression, loop: RowLoop) -> cst.BaseExpression | None:
    """The value ``read`` copies to the host when it mentions none of the loop's row names
    (a value computed from the row in earlier statements), or None when the read names the row
    itself and the walk says what waits."""
    if _names(read) & loop.names:
        return None
    operand = _operand(read)
    if operand is read and isinstance(read, cst.Call):
        return None  # no operand to name (``max(0, start - n)``): the read names itself
    return operand if _names(operand) else None

"""Running offsets in a loop that packs items into one device buffer (HTD101).

``for row in rows: buf[start:start + n].copy_(row); start += n`` copies each item on its own,
as ``buf[i].copy_(row)`` does: the offset arithmetic is bookkeeping, not other work per item.
The same loop packs gradients into a flat bucket in training code (device to device), so a
loop with such bookkeeping counts only where its items are proven host tensors
(:func:`host_items`)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.loop_transfers import Transfer, converted_item
from h2dlint.analysis.provenance import Provenance

# Calls whose result is a size: ``len(row)``, ``int(n)``, ``row.numel()``, ``row.size(0)``.
SIZE_FUNCTIONS = frozenset({"len", "int"})
SIZE_METHODS = frozenset({"numel", "size", "nelement"})
OFFSET_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)


def offset_statement(small: cst.BaseSmallStatement, loop_names: set[str]) -> bool:
    """``start += n`` (``-=``), ``end = start + row.numel()``, ``n = len(row)``,
    ``start = end``: a name not of the loop bound to size arithmetic."""
    if isinstance(small, cst.AugAssign):
        return (
            isinstance(small.target, cst.Name)
            and small.target.value not in loop_names
            and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign))
            and size_arithmetic(small.value)
        )
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return False
    return small.targets[0].target.value not in loop_names and size_arithmetic(small.value)


def size_arithmetic(node: cst.BaseExpression) -> bool:
    """Integer arithmetic of names, numbers, sizes and shapes: nothing that moves data."""
    if isinstance(node, (cst.Name, cst.Integer)):
        return True
    if isinstance(node, cst.BinaryOperation):
        return (
            isinstance(node.operator, OFFSET_OPERATORS)
            and size_arithmetic(node.left)
            and size_arithmetic(node.right)
        )
    if isinstance(node, cst.Attribute):  # ``row.shape`` of ``row.shape[0]``, ``self.width``
        return isinstance(node.value, (cst.Name, cst.Attribute))
    if isinstance(node, cst.Subscript):  # ``row.shape[0]``
        return (
            isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "shape"
            and all(
                isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Integer)
                for e in node.slice
            )
        )
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Name) and func.value in SIZE_FUNCTIONS:
            return len(node.args) == 1
        return isinstance(func, cst.Attribute) and func.attr.value in SIZE_METHODS
    return False


def host_items(
    transfers: list[Transfer],
    iterable: cst.BaseExpression,
    loop_names: set[str],
    provenance: Provenance,
    frame: Frame,
) -> bool:
    """Whether every transfer moves a host tensor: one made of the item (``torch.tensor(r)``),
    one proven on the host, or an item of a collection of host tensors."""
    if provenance.sequence_where(iterable, frame).on_host:
        return True
    return all(
        converted_item(t.moved, loop_names, provenance) is not None
        or provenance.where(t.moved, frame).on_host
        or provenance.is_host_data(t.moved, frame)
        for t in transfers
    )

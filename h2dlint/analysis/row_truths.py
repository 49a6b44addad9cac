"""A row used as a truth value (HTD201): ``if y[i]:``, ``if not done[b]:``, ``x if y[i] else
z``, ``[v for i in range(n) if keep[i]]``, ``flag = y[i] and ok``, ``stop = not y[i] > 0``.
Python asks the row for ``bool()`` (``Tensor.__bool__``), which copies it to the host and
waits: one device sync per row, as ``if y[i] > 0:`` (the comparison's result is a 0-d tensor).

Which operand Python asks ``bool()`` of outside a test (the left one of ``and``/``or``, the
operand of ``not``) is HTD202's :func:`~h2dlint.analysis.boolean_operands.bool_operand`; in a
test every operand of ``and``/``or``/``not`` is tested. A bare row (``y[i]``, a row the loop
binds, a name bound to a row) is a truth value of a tensor only where ``y`` is one: a list, a
numpy array or the ``.tolist()`` of a tensor have Python truth values too, so the caller counts
these reads only where ``y`` is proven on the device or surely a tensor (:data:`TRUTH_READS`).
An ``assert`` of a row is not counted (a check, dropped under ``python -O``, as HTD201's other
reads in an ``assert`` are)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from h2dlint.analysis.boolean_operands import bool_operand
from h2dlint.analysis.row_shapes import row_comparison
from h2dlint.analysis.sync_basics import RowLoop, Walk
from h2dlint.analysis.value_syncs import tensor_test

ROW_TRUTH = "a row as a truth value (`Tensor.__bool__`)"
ROW_COMPARED = "a comparison of a row as a truth value"
# Reads counted only where the tensor is on the device or surely a tensor (rows of Python
# lists and numpy arrays are tested the same way).
TRUTH_READS = frozenset({ROW_TRUTH, ROW_COMPARED})
IF_TEST = "a tensor as an `if` test"
TRUTH_TEST = "a tensor as a truth value"


def _is_not(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)


def _tested_parts(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The parts of a test Python asks ``bool()`` of: the test, through ``not`` and parentheses,
    and each operand of ``and``/``or`` (the last one's value is the test's)."""
    if isinstance(test, cst.UnaryOperation) and _is_not(test):
        yield from _tested_parts(test.expression)
    elif isinstance(test, cst.BooleanOperation):
        yield from _tested_parts(test.left)
        yield from _tested_parts(test.right)
    else:
        yield test


def bare_row(node: cst.BaseExpression, loop: RowLoop) -> bool:
    """Whether ``node`` is a row itself: ``t[i]`` by the index of an index walk, the row a row
    walk binds (``for done in dones``), or a name the body binds to a row (``d = t[i]``)."""
    if isinstance(node, cst.Name):
        derived = {name for name, _ in loop.derived}
        return node.value in derived or (loop.walk is Walk.ROWS and node.value in loop.names)
    return (
        loop.walk is Walk.INDEX
        and isinstance(node, cst.Subscript)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, cst.Name)
        and node.slice[0].slice.value.value in loop.names
    )


def _row_part(part: cst.BaseExpression, loop: RowLoop) -> tuple[cst.BaseExpression, str] | None:
    if row_comparison(part, loop) is not None:
        return part, ROW_COMPARED
    if bare_row(part, loop):
        return part, ROW_TRUTH
    return None


def test_read(
    test: cst.BaseExpression, loop: RowLoop, what: str
) -> tuple[cst.BaseExpression, str] | None:
    """What of ``test`` (an ``if``'s, a conditional's or a comprehension's) Python asks
    ``bool()`` of that may be a row's tensor, and how to say so (``what`` for a tensor test
    :func:`~h2dlint.analysis.value_syncs.tensor_test` takes, or a row compared at the top of an
    ``if``, as before session 43); None when none."""
    found = tensor_test(test)
    if found is not None:
        return found, what
    if what == IF_TEST and row_comparison(test, loop) is not None:
        return test, what
    for part in _tested_parts(test):
        row = _row_part(part, loop)
        if row is not None:
            return row
    return None


def operand_read(
    node: cst.BooleanOperation | cst.UnaryOperation,
    ancestors: Sequence[cst.CSTNode],
    loop: RowLoop,
) -> tuple[cst.BaseExpression, str] | None:
    """The row ``node`` (``and``/``or``/``not`` outside a test) asks ``bool()`` of, if any."""
    found = bool_operand(node, ancestors)
    if found is None:
        return None
    return _row_part(found[0], loop)


class TruthReads(cst.CSTVisitor):
    """A loop body's visitor that keeps the ancestors of the node visited and hands each truth
    value a row may be (conditionals', comprehensions' tests, ``and``/``or``/``not`` operands
    outside a test) to ``truth`` (an ``if``'s test is the subclass's own)."""

    loop: RowLoop

    def __init__(self) -> None:
        self.ancestors: list[cst.CSTNode] = []

    def truth(self, read: tuple[cst.BaseExpression, str] | None) -> None:
        raise NotImplementedError

    def on_visit(self, node: cst.CSTNode) -> bool:
        enter = super().on_visit(node)
        self.ancestors.append(node)
        return enter

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.ancestors.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.truth(test_read(node.test, self.loop, TRUTH_TEST))

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self.truth(test_read(node.test, self.loop, TRUTH_TEST))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self.truth(operand_read(node, self.ancestors, self.loop))

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        self.truth(operand_read(node, self.ancestors, self.loop))

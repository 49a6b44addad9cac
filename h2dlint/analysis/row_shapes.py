"""The shapes of a row loop's body that :mod:`h2dlint.analysis.syncs` reads: which names an
assignment binds to a row (``t, h, w = g[0], g[1], g[2]``), which values are bare rows or
Python values, which tensor methods take sizes, and an ``if`` that compares a row."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.sync_basics import METADATA_ATTRIBUTES, RowLoop, Walk
from h2dlint.analysis.value_syncs import COMPARISON_OPERATORS, key_membership

# Tensor methods whose positional arguments are sizes (``x.repeat(n, 1)``,
# ``x.new_zeros(n, d)``): a 0-d tensor there is read with ``__index__``.
SIZE_METHODS = frozenset({"repeat", "new_zeros", "new_ones", "new_empty", "expand"})


def row_comparison(test: cst.BaseExpression, loop: RowLoop) -> cst.BaseExpression | None:
    """``if next_tokens[i] == eos:`` in an index walk: a row of the indexed tensor compared
    is a 0-d tensor, and ``if`` asks it for ``bool()``. Only a row itself or arithmetic of
    one (``t[i]``, ``t[i] * k``; not a call of it) and only in an index walk; whether ``t``
    is a tensor at all is for the caller's evidence (``range(t.shape[0])``,
    ``t = x.argmax(dim=-1)``)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    derived = computed_compared(test, loop)  # ``if torch.dot(g_i, g_j) < 0``, session 45
    if derived is not None:
        return derived
    if loop.walk is not Walk.INDEX:
        return None
    comparison = test.comparisons[0]
    if isinstance(comparison.operator, (cst.In, cst.NotIn)):
        # ``if tok in rows[i]:``: ``Tensor.__contains__`` reads the row to answer (a string's
        # membership is a dict's key test: :func:`value_syncs.key_membership`).
        return test if _membership_of_row(test, comparison.comparator, loop) else None
    if not isinstance(comparison.operator, COMPARISON_OPERATORS):
        return None
    operands = (test.left, comparison.comparator)
    if any(isinstance(o, (cst.SimpleString, cst.FormattedString)) for o in operands):
        return None
    for operand in operands:
        if _indexed_row(operand, loop):
            return test
    return None


def _membership_of_row(test: cst.Comparison, container: cst.BaseExpression, loop: RowLoop) -> bool:
    """``tok in rows[i]``: the row is the container and the member no string."""
    return not key_membership(test) and _indexed_row(container, loop)


# Arithmetic of a row that is a 0-d tensor of the row's device (``lengths[i] * ratio``).
_ROW_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide)


def _indexed_row(operand: cst.BaseExpression, loop: RowLoop) -> bool:
    """``t[i]`` by the walk's index, also scaled or shifted by arithmetic (``t[i] * ratio``,
    ``t[i] + 1``: still a 0-d tensor compared; NeMo's ``if self.block_size >=
    input_lengths[i] * self.max_mask_ratio:``, session 44)."""
    if isinstance(operand, cst.BinaryOperation) and isinstance(operand.operator, _ROW_ARITHMETIC):
        return _indexed_row(operand.left, loop) or _indexed_row(operand.right, loop)
    return (
        isinstance(operand, cst.Subscript)
        and len(operand.slice) == 1
        and isinstance(operand.slice[0].slice, cst.Index)
        and isinstance(operand.slice[0].slice.value, cst.Name)
        and operand.slice[0].slice.value.value in loop.names
    )


def unpacked(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> list[tuple[cst.Name, cst.BaseExpression]]:
    """The names an assignment binds with their values: ``n = v``; ``t, h, w = g[0], g[1],
    g[2]`` pairwise; ``t, h, w = row`` each to the row (its elements are 0-d tensors of the
    row's device)."""
    if isinstance(target, cst.Name):
        return [(target, value)]
    if not isinstance(target, (cst.Tuple, cst.List)):
        return []
    names = [e.value for e in target.elements]
    if not all(isinstance(n, cst.Name) for n in names):
        return []
    if isinstance(value, (cst.Tuple, cst.List)):
        values = [e.value for e in value.elements]
        if len(values) != len(names) or any(
            isinstance(e, cst.StarredElement) for e in value.elements
        ):
            return []
        return [(n, v) for n, v in zip(names, values, strict=True) if isinstance(n, cst.Name)]
    if isinstance(value, (cst.Name, cst.Subscript)):
        return [(n, value) for n in names if isinstance(n, cst.Name)]
    return []


def host_value(value: cst.BaseExpression) -> bool:
    """A Python value computed from a row, never a tensor: a display, a comprehension, a
    builtin's result over one (``sum([1 if x == bg else 0 for x in t[i]])``, funasr's emotion
    token filter: a Python int, session 45) or a ``len()``."""
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value in _PYTHON_BUILTINS
        and value.args
    ):
        first = value.args[0].value
        return value.func.value == "len" or isinstance(first, (*_DISPLAYS, cst.GeneratorExp))
    return isinstance(value, _DISPLAYS)


def python_bool(value: cst.BaseExpression, reads_row: Callable[[cst.BaseExpression], bool]) -> bool:
    """``bank[i] is None``, ``bank[i].device != dev``, ``tuple(bank[i].size()) != shape``, and
    ``and``/``or`` of such (with parts that read no row, ``i >= len(bank)``): identity tests
    and comparisons of a row's metadata (its device, dtype, shape) are Python bools, never
    tensors (OLMo-core 3.0.0's CPU-offload reload, ``nn/moe/v2/te/cpu_offload.py:232``, decides
    per buffer whether to reallocate), as is a string's membership test (``"masks" in result``
    of a result dict: :func:`value_syncs.key_membership`). Not another membership test:
    ``tok in rows[i]`` is a Python bool too, but ``Tensor.__contains__`` (or a list's ``==`` of
    a row) reads the device to make it, and that read is reported where the bool is tested.
    ``reads_row`` says whether a part reads a row."""
    if isinstance(value, cst.BooleanOperation):
        sides = (value.left, value.right)
        return any(reads_row(side) for side in sides) and all(
            python_bool(side, reads_row) or not reads_row(side) for side in sides
        )
    if not isinstance(value, cst.Comparison):
        return False
    operators = [c.operator for c in value.comparisons]
    if all(isinstance(o, (cst.Is, cst.IsNot)) for o in operators) or key_membership(value):
        return True
    return _metadata(value.left)


def _metadata(node: cst.BaseExpression) -> bool:
    """A row's metadata or a Python sequence of it: ``x.device``, ``x.shape[0]``,
    ``tuple(x.size())``, ``len(x)``."""
    if isinstance(node, cst.Subscript):
        return _metadata(node.value)
    if isinstance(node, cst.Attribute):
        return node.attr.value in METADATA_ATTRIBUTES
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value in ("len", "tuple", "list")
        and bool(node.args)
        and (node.func.value == "len" or _size_call(node.args[0].value))
    )


def _size_call(node: cst.BaseExpression) -> bool:
    """``x.size()``, ``x.shape``: a tensor's sizes as a Python sequence."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value == "size"
    return isinstance(node, cst.Attribute) and node.attr.value == "shape"


_DISPLAYS = (
    cst.List,
    cst.Tuple,
    cst.ListComp,
    cst.DictComp,
    cst.Dict,
    cst.SimpleString,
    cst.SetComp,
)
# Builtins whose result over a Python display or comprehension is a Python value.
_PYTHON_BUILTINS = frozenset({"len", "sum", "max", "min", "any", "all", "sorted", "list", "tuple"})


def row_value(node: cst.BaseExpression) -> bool:
    """A bare value (``l``, ``lens[i]``, ``l + 1``), not a call of it (``l.item()`` is read
    above) or metadata (``len(x)``, ``x.shape[0]``)."""
    if isinstance(node, cst.BinaryOperation):
        return row_value(node.left) or row_value(node.right)
    # ``x[-l:]``: the negation of a 0-d tensor is one (Session 35, recall35: LLM2Vec's mean
    # pooling of left-padded rows, ``h[i, -length:, :]`` per device length).
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return row_value(node.expression)
    return isinstance(node, (cst.Name, cst.Subscript)) or (
        isinstance(node, cst.Attribute) and node.attr.value not in METADATA_ATTRIBUTES
    )


__all__ = ["SIZE_METHODS", "host_value", "row_comparison", "row_value", "unpacked"]


def computed_compared(test: cst.Comparison, loop: RowLoop) -> cst.BaseExpression | None:
    """``if g_i_g_j < 0:`` of ``g_i_g_j = torch.dot(g_i, g_j)`` in a walk of ``g_j``: a name
    the body binds to a tensor computed from the row (``loop.derived``, no host read of it)
    compared is a 0-d tensor asked for ``bool()`` (session 45, pytorch-optimizer's PCGrad);
    whether the rows are tensors is the caller's evidence, as for a row compared."""
    comparison = test.comparisons[0]
    if not isinstance(comparison.operator, COMPARISON_OPERATORS):
        return None
    derived = {name for name, _ in loop.derived}
    for operand in (test.left, comparison.comparator):
        if isinstance(operand, (cst.SimpleString, cst.FormattedString)):
            return None
    for operand in (test.left, comparison.comparator):
        if isinstance(operand, cst.Name) and operand.value in derived:
            return test
    return None

"""The guards under which code runs once in its function (see :mod:`h2dlint.analysis.once`):
a memoisation guard (``if key not in cache: cache[key] = ...``, ``if self.x is None: self.x =
...``), the ``else`` of a membership test that sets the entry (``if "step" in group: ... else:
group["step"] = ...``), and the attribute a flag or a high-water mark tests (``if not
self.ready:``, ``if seq_len > self.max_seq_len_cached:``), which :class:`once.RunOnce` checks
the guarded body (or a method it calls) assigns."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.filled_caches import filled_by_call
from h2dlint.analysis.getattr_memos import getattr_default_none
from h2dlint.analysis.keyed_memos import keyed_memo
from h2dlint.analysis.memo_methods import getattr_of_self
from h2dlint.imports import statements


def _assigned(body: cst.BaseSuite) -> list[cst.BaseExpression]:
    """The targets of the simple assignments directly in ``body``."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    targets: list[cst.BaseExpression] = []
    for line in lines:
        smalls: Sequence[cst.BaseSmallStatement] = ()
        if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            smalls = line.body
        for small in smalls:
            if isinstance(small, cst.Assign):
                targets.extend(t.target for t in small.targets)
            elif isinstance(small, cst.AnnAssign):
                targets.append(small.target)
    return targets


def self_attribute(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    )


def memo_guard(node: cst.If | cst.IfExp) -> bool:
    """``if key not in cache: cache[key] = ...``, ``if self.x is None: self.x = ...``,
    ``if not hasattr(self, "x"): ...``, ``if getattr(self, "x", None) is None:`` whose body
    sets ``self.x`` (``self.register_buffer("x", ...)``, ``setattr(self, "x", ...)``),
    ``if self.x.numel() == 0: self.x = ...``: a value computed once and kept."""
    if not isinstance(node, cst.If):
        return False
    if keyed_memo(node):
        return True  # ``if self._grid is None or self._res != res:`` (keyed_memos)
    test = node.test
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        return (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Name)
            and inner.func.value == "hasattr"
        )
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    comparison = test.comparisons[0]
    if isinstance(comparison.operator, cst.NotIn):
        cache = comparison.comparator
        return any(
            isinstance(target, cst.Subscript) and target.value.deep_equals(cache)
            for target in _assigned(node.body)
        ) or filled_by_call(test.left, cache, node.body)  # ``self._fill(key, cache)``
    left = guarded_attribute(test)
    if left is not None and any(target.deep_equals(left) for target in _assigned(node.body)):
        return True
    name = getattr_of_self(test.left)
    return (
        name is not None
        and isinstance(comparison.operator, (cst.Is, cst.Equal))
        and name in _registered(node.body)
    )


def memo_else(node: cst.If, child: cst.CSTNode) -> bool:
    """``if key in cache: ... else: cache[key] = ...`` (``child`` the ``else``): the lazy
    initialisation of an entry, on the first call only (``group["step"]`` of an optimizer)."""
    test, orelse = node.test, node.orelse
    if not (isinstance(orelse, cst.Else) and child is orelse):
        return False
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    comparison = test.comparisons[0]
    if not isinstance(comparison.operator, cst.In):
        return False
    return any(
        isinstance(target, cst.Subscript)
        and target.value.deep_equals(comparison.comparator)
        and len(target.slice) == 1
        and target.slice[0].slice.deep_equals(cst.Index(test.left))
        for target in _assigned(orelse.body)
    )


def _registered(body: cst.BaseSuite) -> set[str]:
    """The attributes of ``self`` that ``body`` sets directly: ``self.x = ...``,
    ``self.register_buffer("x", ...)``, ``self.register_parameter("x", ...)``,
    ``setattr(self, "x", ...)``."""
    names = {
        t.attr.value for t in _assigned(body) if self_attribute(t) and isinstance(t, cst.Attribute)
    }
    for small in statements(body):
        call = small.value if isinstance(small, cst.Expr) else None
        if not isinstance(call, cst.Call) or len(call.args) < 2:
            continue
        func, first, second = call.func, call.args[0].value, call.args[1].value
        if (
            isinstance(func, cst.Attribute)
            and self_attribute(func)
            and func.attr.value in ("register_buffer", "register_parameter")
            and isinstance(first, cst.SimpleString)
        ):
            names.add(first.raw_value)
        elif (
            isinstance(func, cst.Name)
            and func.value == "setattr"
            and isinstance(first, cst.Name)
            and first.value == "self"
            and isinstance(second, cst.SimpleString)
        ):
            names.add(second.raw_value)
    return names


def guarded_attribute(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """``self.x`` of ``self.x is None``, ``self.x == ...``, ``self.x.numel() == 0``, ``self.x``,
    ``not self.x``; ``self.x[0]`` of ``self.x[0] == 1`` (a flag kept in a buffer's element,
    which a warm-up body clears: ``self._warmup_enable[0] = 0``)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if self_attribute(test):
        return test
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        first, second = guarded_attribute(test.left), guarded_attribute(test.right)
        same = first is not None and second is not None and first.deep_equals(second)
        return first if same else None  # ``self.x is None or n > self.x``
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    mark = _high_water_mark(test)
    if mark is not None:
        return mark
    if not isinstance(test.comparisons[0].operator, (cst.Is, cst.Equal)):
        return None
    left = test.left
    if (
        isinstance(left, cst.Call)
        and isinstance(left.func, cst.Attribute)
        and left.func.attr.value == "numel"
    ):
        left = left.func.value
    return left if self_attribute(left) or _flag_element(left) else None


def _flag_element(node: cst.BaseExpression) -> bool:
    """``self.x[0]``: one element of an attribute of ``self`` at a literal index."""
    return (
        isinstance(node, cst.Subscript)
        and self_attribute(node.value)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, cst.Integer)
    )


def _high_water_mark(test: cst.Comparison) -> cst.Attribute | None:
    """``self.x`` of ``seq_len > self.x`` (``>=``, or ``self.x < seq_len``): a table rebuilt
    when a size outgrows the one it was built for, when the body raises the mark."""
    operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
    if isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual)) and self_attribute(right):
        return right  # type: ignore[return-value]
    if isinstance(operator, (cst.LessThan, cst.LessThanEqual)) and self_attribute(test.left):
        return test.left  # type: ignore[return-value]
    return None


def alias_memo_guard(node: cst.If, parent: cst.CSTNode) -> bool:
    """``cached = self._cache`` (or ``cached = getattr(owner, "_cache", None)``) then ``if
    cached is None: cached = ...; owner._cache = cached`` (``parent`` the block holding both): a
    memoisation through a local name, the attribute read just before the test and written back
    from the name in the body."""
    test = node.test
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.left, cst.Name)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        return False
    # An ``elif``'s parent is the ``if`` before it, whose ``body`` is a block, not statements:
    # no statement comes just before an ``elif`` test.
    lines = getattr(parent, "body", ())
    if not isinstance(lines, (list, tuple)):
        return False
    index = next((i for i, line in enumerate(lines) if line is node), 0)
    before = lines[index - 1] if index > 0 else None
    if not isinstance(before, cst.SimpleStatementLine) or len(before.body) != 1:
        return False
    read = before.body[0]
    if not (
        isinstance(read, cst.Assign)
        and len(read.targets) == 1
        and isinstance(read.targets[0].target, cst.Name)
        and read.targets[0].target.value == test.left.value
    ):
        return False
    kept = read.value if self_attribute(read.value) else getattr_default_none(read.value)
    if kept is None:
        return False
    return any(
        isinstance(small, cst.Assign)
        and isinstance(small.value, cst.Name)
        and small.value.value == test.left.value
        and any(t.target.deep_equals(kept) for t in small.targets)
        for small in statements(node.body)
    )


def raised_off_zero(
    test: cst.BaseExpression, flag: cst.BaseExpression, body: cst.BaseSuite
) -> bool:
    """``if self.counter == 0: ...; self.counter += 1`` (or ``if not self.counter:``, or
    ``self.counter.add_(1)``): a first-call initialisation whose body raises the counter it
    tests off zero by a positive literal, so the test never holds again (LSQ+'s
    ``init on the first forward``). A counter lowered (``-= 1``), raised by a variable, or
    tested against anything but zero (``if self.n < warmup:``) says nothing."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        if not test.expression.deep_equals(flag):
            return False
    elif not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Equal)
        and test.left.deep_equals(flag)
        and _zero(test.comparisons[0].comparator)
    ):
        return False
    for small in statements(body):
        if (
            isinstance(small, cst.AugAssign)
            and isinstance(small.operator, cst.AddAssign)
            and small.target.deep_equals(flag)
            and _positive(small.value)
        ):
            return True
        call = small.value if isinstance(small, cst.Expr) else None
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "add_"
            and call.func.value.deep_equals(flag)
            and len(call.args) == 1
            and _positive(call.args[0].value)
        ):
            return True
    return False


def _zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float)) and float(node.evaluated_value) == 0.0


def _positive(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float)) and float(node.evaluated_value) > 0.0

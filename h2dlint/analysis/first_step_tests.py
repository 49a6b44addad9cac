"""``if`` tests that hold on the first step of a run only: a step counter compared equal to 0
or 1 (``if group['step'] == 0:``, ``if self.global_step == 1:``, ``if step == 0:``).

An optimizer keeps its step count in its parameter groups or state and does its set-up under
such a test (pytorch-optimizer 3.10's D-Adaptation reads the initial gradient norm with
``.item()`` under ``if group['step'] == 0:``): the branch runs once, not on every call of the
``step()`` around it. Only ``==`` with the literal ``0`` or ``1`` is judged, alone or as a
conjunct of an ``and``; a comparison with a name (``step == warmup``), ``<``/``>``, and other
counters (``i == 0`` of a loop over rows or parts) are not.
"""

from __future__ import annotations

import libcst as cst

# Names, attributes or string keys a step counter goes by.
STEP_COUNTERS = frozenset({"step", "global_step", "step_count", "num_steps", "iteration"})


def first_step_test(test: cst.BaseExpression) -> bool:
    """Whether ``test`` (or a conjunct of it) is ``<step counter> == 0`` or ``== 1``."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return first_step_test(test.left) or first_step_test(test.right)
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    left, right = test.left, target.comparator
    if _first(right):
        return _counter(left)
    return _first(left) and _counter(right)


def _first(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value in (0, 1)


def _counter(node: cst.BaseExpression) -> bool:
    """``step``, ``self.global_step``, ``group['step']``, ``state["step"]``."""
    if isinstance(node, cst.Name):
        return node.value in STEP_COUNTERS
    if isinstance(node, cst.Attribute):
        return node.attr.value in STEP_COUNTERS
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            return index.value.evaluated_value in STEP_COUNTERS
    return False

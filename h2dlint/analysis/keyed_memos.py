"""A memoisation guard keyed by the input: ``if self._grid is None or self._res != dims:``
whose body rebuilds ``self._grid`` and stores ``self._res = dims``. What it guards runs once per
distinct key (a resolution, a shape), not per call (session 48, triage48b: neuraloperator 2.0.0's
``GridEmbeddingND.grid``, ``layers/embeddings.py:139``, moves its grids to the device only when
the resolution changes). Every operand of the ``or`` is ``self.x is None`` or ``self.y !=
key`` (``key != self.y``), and the body assigns every such attribute itself."""

from __future__ import annotations

import libcst as cst


def keyed_memo(node: cst.If) -> bool:
    """Whether ``node`` is such a guard (see the module's docstring)."""
    operands = _or_operands(node.test)
    if len(operands) < 2:
        return False
    kept: list[cst.BaseExpression] = []
    keyed = False
    for operand in operands:
        if not (isinstance(operand, cst.Comparison) and len(operand.comparisons) == 1):
            return False
        target = operand.comparisons[0]
        left, right = operand.left, target.comparator
        if isinstance(target.operator, cst.Is) and _self_attribute(left) and _none(right):
            kept.append(left)
        elif isinstance(target.operator, cst.NotEqual) and _self_attribute(left):
            kept.append(left)
            keyed = True
        elif isinstance(target.operator, cst.NotEqual) and _self_attribute(right):
            kept.append(right)
            keyed = True
        else:
            return False
    assigned = _assigned(node.body)
    return keyed and all(any(a.deep_equals(k) for a in assigned) for k in kept)


def _or_operands(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return [*_or_operands(test.left), *_or_operands(test.right)]
    return [test]


def _self_attribute(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    )


def _none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _assigned(body: cst.BaseSuite) -> list[cst.BaseExpression]:
    """The targets of the simple assignments directly in ``body``."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    targets: list[cst.BaseExpression] = []
    for line in lines:
        if not isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            continue
        for small in line.body:
            if isinstance(small, cst.Assign):
                targets.extend(t.target for t in small.targets)
            elif isinstance(small, cst.AnnAssign):
                targets.append(small.target)
    return targets

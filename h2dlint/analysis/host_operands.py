"""Python or numpy data through the comparisons and arithmetic a ``while`` or ``if`` test
builds of it: ``counts < targets`` of two numpy arrays is a numpy array, and its ``.any()`` is
numpy's reduction, read on the host (sb3-contrib's maskable ``evaluate_policy`` counts its
episodes so). One tensor operand makes the whole a tensor: numpy defers to ``torch.Tensor``'s
operators (``__array_priority__``), so every operand must be host data."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.provenance.core import ELEMENTWISE_COMPARISONS


def host_operands(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``node`` is Python or numpy data, also as a comparison or arithmetic of such
    data (``counts < targets``, ``counts + 1``, ``~done``)."""
    if isinstance(node, cst.Comparison):
        if not all(isinstance(c.operator, ELEMENTWISE_COMPARISONS) for c in node.comparisons):
            return False
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        return all(host_operands(provenance, o, frame) for o in operands)
    if isinstance(node, cst.BinaryOperation):
        return host_operands(provenance, node.left, frame) and host_operands(
            provenance, node.right, frame
        )
    if isinstance(node, cst.UnaryOperation):
        return host_operands(provenance, node.expression, frame)
    return provenance.is_host_data(node, frame)

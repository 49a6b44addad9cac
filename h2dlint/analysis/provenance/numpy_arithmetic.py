"""Numpy arithmetic with Python numbers or other arrays: ``np.arange(n) / frame_rate`` and
``array * gains`` (both numpy arrays) are still numpy arrays."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.python_annotations import python_data_annotated


def numpy_with_number(
    node: cst.BinaryOperation, frame: Frame, is_numpy: Callable[[cst.BaseExpression], bool]
) -> bool:
    """``node`` combines a numpy array (``is_numpy``) with a Python number (session 30). A tensor
    on the other side would make a tensor, so only numbers count; ``@`` is no such arithmetic.
    Two numpy arrays (``array * gains`` of ``gains = np.random.rand(n)[:, None]``) make one
    whatever the operator (session 40: a test's batch of host signals read as tensor rows)."""
    sides = (node.left, node.right)
    if is_numpy(node.left) and is_numpy(node.right):
        return True
    if isinstance(node.operator, cst.MatrixMultiply):
        return False
    return any(
        python_number(other, frame) and is_numpy(side) for side, other in (sides, sides[::-1])
    )


def python_number(node: cst.BaseExpression, frame: Frame) -> bool:
    """A number literal, or a parameter annotated as Python numbers (``frame_rate: int``)."""
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    return isinstance(node, cst.Name) and python_data_annotated(node, frame)

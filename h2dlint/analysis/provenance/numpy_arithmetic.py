"""Numpy arithmetic with Python numbers or other arrays: ``np.arange(n) / frame_rate``,
``array * gains`` (both numpy arrays) and ``array /= peak`` (an array updated in place) are still
numpy arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import libcst as cst

from h2dlint.analysis.bindings import Binding, arithmetic_update
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.python_annotations import python_data_annotated


class _DataTests(Protocol):
    """The provenance's tests of numpy arrays and host data."""

    def is_numpy_array(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> bool: ...

    def is_host_data(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> bool: ...


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


def numpy_update(
    provenance: _DataTests,
    binding: Binding,
    name: cst.Name,
    test: Callable[[cst.BaseExpression, Frame, int], bool],
    frame: Frame,
    depth: int,
) -> bool | None:
    """Whether ``name`` is a numpy array after ``binding``, an in-place update of it (``array
    /= np.abs(array).max()``, ``img -= mean``): it is when it was one before (the update's
    target, read before the update). Numpy updates an array in place whatever the other
    operand (it does not defer to a tensor's operator there), while a Python number updated
    with a tensor becomes one: so the answer is numpy's, for numpy's ``test`` or that of host
    data; None for another test, or another binding (session 40)."""
    if test != provenance.is_numpy_array and test != provenance.is_host_data:
        return None
    target = arithmetic_update(binding.statement, name.value)
    return None if target is None else provenance.is_numpy_array(target, frame, depth + 1)

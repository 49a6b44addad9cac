"""Branches that run only off CUDA: the body of ``if device.type != "cuda":`` (or
``== "cpu"``, ``if not x.is_cuda:``) and the ``else`` of ``if device.type == "cuda":`` (or
``if x.is_cuda:``). A copy there is a CPU or other backend's fallback, not a host-to-GPU copy:
on a GPU the other branch runs (HTD101)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def off_cuda_branch(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the innermost node of ``ancestors`` (outermost first) is in a branch of its
    function that runs only when the device is not CUDA."""
    for i in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[i - 1], ancestors[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if not isinstance(parent, cst.If):
            continue
        cuda = cuda_test(parent.test)
        if cuda is False and child is parent.body:
            return True
        if cuda is True and child is parent.orelse:
            return True
    return False


def cuda_test(test: cst.BaseExpression) -> bool | None:
    """True for a test that holds only on CUDA (``x.is_cuda``, ``dev.type == "cuda"``), False
    for one that holds only off CUDA (``dev.type != "cuda"``, ``dev.type == "cpu"``, ``not
    x.is_cuda``), None for anything else."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = cuda_test(test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        # ``a and b`` holds only where either side holds; ``a or b`` only where both may.
        sides = (cuda_test(test.left), cuda_test(test.right))
        if isinstance(test.operator, cst.And):
            return True if True in sides else False if False in sides else None
        return sides[0] if sides[0] is not None and sides[0] == sides[1] else None
    if isinstance(test, cst.Attribute):
        return True if test.attr.value == "is_cuda" else None
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    left, comparison = test.left, test.comparisons[0]
    if not (
        isinstance(left, cst.Attribute) and left.attr.value == "type" and _device_like(left.value)
    ):
        return None  # ``self.type == "tapas"`` is no device test
    value = comparison.comparator
    if not isinstance(value, cst.SimpleString):
        return None
    kind = value.evaluated_value
    if isinstance(comparison.operator, cst.Equal):
        return True if kind == "cuda" else False if kind in DEVICE_TYPES else None
    if isinstance(comparison.operator, cst.NotEqual) and kind == "cuda":
        return False
    return None


# The types of ``torch.device`` other than ``"cuda"`` that code tests for.
DEVICE_TYPES = frozenset({"cpu", "mps", "xpu", "npu", "hpu", "meta", "xla", "mtia", "musa"})


def _device_like(node: cst.BaseExpression) -> bool:
    """``x.device``, ``device``, ``dev``, ``self.target_device``: what ``.type`` is read of."""
    name = node.attr.value if isinstance(node, cst.Attribute) else None
    if isinstance(node, cst.Name):
        name = node.value
    return name is not None and ("device" in name.lower() or name.lower() in ("dev", "d"))

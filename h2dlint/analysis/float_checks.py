"""A check of a tensor's values for NaN or infinity used as a truth value: ``if
torch.isnan(loss): raise``, ``if not torch.isfinite(loss):``, ``if loss.isnan(): continue``.

``torch.isnan(x)`` and its kin take only tensors (a Python float or a numpy array there is a
``TypeError``) and return a bool tensor on ``x``'s device, so Python's ``bool()`` of it reads
the device like ``torch.isnan(x).any()`` does: a sync where ``x`` is on the GPU. The method
forms (``x.isnan()``) are tensors' only: a Python float and a numpy array have none.
``math.isnan``/``np.isnan`` (other modules' functions) are not these.
"""

from __future__ import annotations

import libcst as cst

# Elementwise float classifications: a bool tensor of the input's shape and device.
FLOAT_CHECKS = frozenset({"isnan", "isinf", "isfinite", "isposinf", "isneginf"})


def float_check(node: cst.BaseExpression) -> bool:
    """``torch.isnan(x)`` (one positional argument) or ``x.isnan()`` (none)."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return False
    if node.func.attr.value not in FLOAT_CHECKS or any(a.keyword for a in node.args):
        return False
    owner = node.func.value
    if isinstance(owner, cst.Name) and owner.value == "torch":
        return len(node.args) == 1 and not node.args[0].star
    return not node.args  # ``loss.isnan()`` (``math.isnan``/``np.isnan`` need an argument)

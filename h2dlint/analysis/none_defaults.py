"""A value filled in when missing: ``amax = quantizer.amax`` then ``if amax is None: amax =
x.abs().amax()``. The first binding is whatever the object holds, or None; the default says
what kind of value the name holds when it is not None (a tensor, here), so a question about
the kind (is it a tensor?) may take the default's answer for it (nvidia-modelopt 0.33's FP8
GEMM tested ``if input_amax == 0:`` on every forward, a calibrated amax or its fallback)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.bindings import Binding, Bindings

# What a missing value is read from: an attribute, an entry, a call's result, another name.
_READ_FROM = (cst.Attribute, cst.Subscript, cst.Call, cst.Name)


def _none_test(test: cst.BaseExpression, name: str) -> bool:
    """``name is None``."""
    return (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and test.left.value == name
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    )


def default_binding(bindings: Bindings, binding: Binding, name: str) -> bool:
    """Whether ``binding`` is made in the body of ``if name is None:`` (not its ``else``)."""
    node: cst.CSTNode = binding.statement
    for _ in range(4):
        parent = bindings.parents.get(node)
        if parent is None or isinstance(parent, (cst.Else, cst.FunctionDef)):
            return False
        if isinstance(parent, cst.If):
            return parent.body is node and _none_test(parent.test, name)
        node = parent
    return False


def none_placeholder(binding: Binding) -> bool:
    """Whether ``binding`` is ``name = None``: a placeholder an optional value starts as
    (``row_mask = None`` then ``if exists(mask): row_mask = ~mask.any(dim=-1)``). It says
    nothing of the value's kind: where the name is read as a tensor (``row_mask.any()``), the
    None cannot be what is read, so the other bindings decide."""
    value = binding.value
    return isinstance(value, cst.Name) and value.value == "None"


def defaulted(
    bindings: Bindings, reaching: tuple[Binding, ...], binding: Binding, name: str
) -> bool:
    """Whether ``binding`` reads a value that may be missing (``name = obj.attr``) and another
    binding reaching the same use fills it in under ``if name is None:``: the default then
    says what the name holds."""
    if not isinstance(binding.value, _READ_FROM) or default_binding(bindings, binding, name):
        return False
    return any(
        other is not binding
        and other.order > binding.order
        and default_binding(bindings, other, name)
        for other in reaching
    )

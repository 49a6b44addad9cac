"""A name read inside the branch of a test that proves it a tensor: ``if isinstance(sigma,
torch.Tensor): sigma = sigma.to(dtype).item()`` (or ``torch.is_tensor(sigma)``). Whatever the
annotation says (``sigma: float | torch.Tensor``: a union, no proof alone), the guarded branch
IS the tensor case, so the guard makes the read a tensor's, not a number's (even where the
annotation says ``float``: flashinfer 0.5's kernel wrappers read ``bmm1_scale: float`` with
``bmm1_scale.item() if isinstance(bmm1_scale, torch.Tensor) else bmm1_scale``) (ltx-core's
``to_velocity`` read one sigma per Euler step this way; lerobot's WallX ``forward`` read each
channel loss, ``if isinstance(value, torch.Tensor): d[key] = value.item()``). Only the tested
value counts: a name rebound between the test and the read is another value, and the ``else``
arm or the code after the test proves nothing.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.python_annotations import python_data_annotated
from h2dlint.context import SharedKey
from h2dlint.walk import parent_map

# Each function's map of its nodes to their parents, per file.
_PARENTS: SharedKey[dict[cst.CSTNode, cst.CSTNode]] = SharedKey("parents for tensor guards")


def guarded_tensor(provenance: FactSource, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is read in the true branch of ``if isinstance(name, torch.Tensor)`` (or
    ``torch.is_tensor(name)``, alone or as an operand of ``and``; an ``if``, an ``elif`` or a
    conditional expression) with the same bindings reaching it as reach the test: nothing
    rebinds it between the test and the read."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    bindings = provenance.bindings(frame)
    reaching = bindings.reaching_bindings(name)
    if not reaching:
        return False
    parents = provenance.context.shared(_PARENTS, lambda: parent_map(function), function)
    child: cst.CSTNode = name
    parent = parents.get(name)
    while parent is not None and parent is not function:
        if isinstance(parent, (cst.If, cst.IfExp)) and child is parent.body:
            tested = tested_name(provenance, parent.test, name.value)
            if tested is not None and bindings.reaching_bindings(tested) == reaching:
                return True
        child, parent = parent, parents.get(parent)
    return False


def tested_name(provenance: FactSource, test: cst.BaseExpression, name: str) -> cst.Name | None:
    """The ``name`` node that ``test`` proves a tensor when it holds:
    ``isinstance(name, torch.Tensor)`` (``Tensor`` imported, or a tuple of tensor classes),
    ``torch.is_tensor(name)``, or an ``and`` with one such operand; None for any other test."""
    if isinstance(test, cst.BooleanOperation):
        if not isinstance(test.operator, cst.And):
            return None
        return tested_name(provenance, test.left, name) or tested_name(provenance, test.right, name)
    if not isinstance(test, cst.Call) or len(test.args) not in (1, 2):
        return None
    first = test.args[0].value
    if not (isinstance(first, cst.Name) and first.value == name):
        return None
    called = provenance.qualify(test.func) or ""
    if len(test.args) == 1:
        return first if called == "torch.is_tensor" else None
    if not (isinstance(test.func, cst.Name) and test.func.value == "isinstance"):
        return None
    kinds = test.args[1].value
    elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    tensors = bool(elements) and all(_tensor_class(provenance, e) for e in elements)
    return first if tensors else None


def _tensor_class(provenance: FactSource, node: cst.BaseExpression) -> bool:
    qualified = provenance.qualify(node) or ""
    return qualified in ("torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter")


def unguarded_python_data(provenance: FactSource, name: cst.Name, frame: Frame) -> bool:
    """Whether the parameter ``name``'s annotation says Python numbers or sequences of them
    and no guard proves it a tensor where it is read (flashinfer's ``bmm1_scale: float``
    read under ``isinstance(bmm1_scale, torch.Tensor)`` is a tensor there)."""
    return python_data_annotated(name, frame) and not guarded_tensor(provenance, name, frame)

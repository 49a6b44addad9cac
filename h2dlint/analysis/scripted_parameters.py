"""Bare parameters of a ``@torch.jit.script`` function: TorchScript types every parameter
without an annotation (and without a default) as ``Tensor``, and a call with anything else
fails, so ``def get_half_lse(lse, cu_seqlens, *, front: bool)`` takes two tensors. That says
"a tensor"; where it lives is the provenance's question.

(A parameter a function hands to ``ctx.save_for_backward(...)`` is a tensor too: an autograd
``Function`` saves only tensors that way; :func:`h2dlint.analysis.item_writes.used_as_tensor`
knows it.)
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance

# Decorators that compile a function with TorchScript's typing of bare parameters.
SCRIPT_DECORATORS = frozenset({"torch.jit.script"})


def scripted_parameter(
    provenance: Provenance, name: cst.Name, frame: Frame, *, unchanged: bool = False
) -> bool:
    """Whether ``name`` is a parameter with neither annotation nor default of a
    ``@torch.jit.script`` function (a ``Tensor`` in TorchScript's typing; a default's type
    would be the parameter's). With ``unchanged``, only where the parameter's value is the one
    that reaches ``name`` (no other binding of it does)."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef) or not function.decorators:
        return False
    if unchanged:
        bindings = provenance.bindings(frame)
        if not bindings.is_parameter(name) or bindings.of(name.value).count(None) != 1:
            return False
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name.value:
            if param.annotation is not None or param.default is not None:
                return False
            break
    else:
        return False
    for decorator in function.decorators:
        expression = decorator.decorator
        if isinstance(expression, cst.Call):
            expression = expression.func
        if provenance.qualify(expression) in SCRIPT_DECORATORS:
            return True
    return False

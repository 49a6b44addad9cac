"""What a call returns, by the annotation of the function it runs.

``sampled, logprobs = self.sampler(logits, meta)`` where ``self.sampler`` is a module whose
``forward`` says ``-> tuple[torch.Tensor, torch.Tensor | None]``, or ``ids = pack(rows)`` with
``def pack(...) -> torch.Tensor``: the annotation proves a tensor (not where it is). Functions
of the project only (their definitions are what the annotation is read from); the caller
decides whether the annotation names a tensor.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.classes import class_of
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.provenance.common import fixed_tuple_elements

# A module object called runs one of these.
_CALLED_METHODS = ("forward", "__call__")


def returned_annotation(
    provenance: Provenance, call: cst.Call, frame: Frame, position: int | None = None
) -> tuple[Provenance, cst.BaseExpression] | None:
    """The return annotation of the function ``call`` runs, with the provenance of the module
    that defines it (whose imports the annotation's names are read with); with ``position``,
    the annotation of that element of a ``tuple[...]`` it returns (no ``...`` in it). None when
    the callee or its annotation is unknown."""
    found = provenance.callee(call, frame)
    if found is None:
        found = _called_object(provenance, call, frame)
    if found is None:
        return None
    owner, function = found
    returns = function.returns
    if returns is None:
        return None
    annotation = returns.annotation
    if position is None:
        return owner, annotation
    elements = fixed_tuple_elements(owner.qualify, annotation)
    if elements is None or position >= len(elements):
        return None
    return owner, elements[position]


def _called_object(
    provenance: Provenance, call: cst.Call, frame: Frame
) -> tuple[Provenance, cst.FunctionDef] | None:
    """``self.sampler(...)`` of an object of a class of the project: its ``forward`` (a
    module) or ``__call__``."""
    if not isinstance(call.func, (cst.Name, cst.Attribute)):
        return None
    ref = class_of(provenance, call.func, frame)
    if ref is None or ref.node is None or ref.provenance is None:
        return None
    methods = ref.provenance.index.methods.get(ref.node, {})
    for name in _CALLED_METHODS:
        method = methods.get(name)
        if method is not None:
            owner = ref.provenance
            assert isinstance(owner, Provenance)  # a module's fact source is its Provenance
            return owner, method
    return None

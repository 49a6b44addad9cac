"""Whether a parameter without an annotation holds a tensor because every call passes one.

A helper of a model often leaves its tensor parameters bare (``def unpack(self, q, k, v,
cu_seqlens)``) while the ``forward`` that calls it annotates its own (``cu_seqlens:
torch.Tensor``) and passes it on. Where every call of the helper is known
(:func:`~h2dlint.analysis.argument_flow.arguments`: the calls of this module, none elsewhere)
and each passes a value proven a tensor in the caller's frame, the parameter is a tensor too:
its rows are tensors, and a row used as a size or a count reads the device. A call that passes
``None``, a default, or a value of unknown kind leaves the parameter unknown.
"""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from h2dlint.analysis.argument_flow import arguments
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance


class Evidence(Protocol):
    """``tensor_evidence``'s signature (``tensor_kinds`` imports this module)."""

    def __call__(
        self, provenance: Provenance, node: cst.BaseExpression, frame: Frame, *, depth: int
    ) -> cst.BaseExpression | None: ...


def passed_tensors(
    provenance: Provenance, name: cst.Name, frame: Frame, depth: int, evidence: Evidence
) -> bool:
    """Whether every known call of ``frame``'s function passes, for its parameter ``name``,
    a value that ``evidence`` (asked in the caller's frame, one level deeper) proves a
    tensor."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    passed = arguments(provenance, function, name.value)
    if not passed:
        return False
    return all(
        a.source is provenance
        and evidence(provenance, a.value, a.frame, depth=depth + 1) is not None
        for a in passed
    )

"""Host index tensors that index a device tensor: ``dev[idx]``, ``scores[rows, cols]`` with
``cols`` a host tensor of one dimension or more. Advanced indexing copies such an index to the
indexed tensor's device before the gather (``index.to(self.device)``), from pageable memory,
blocking: the copy ``torch.tensor(data, device=...)`` makes (HTD106 reports both). A CUDA
tensor is indexed only by indices on its device or on the host, so an index proven on the
device proves the indexed tensor there too (hivemind's MoE gathered its gating scores with the
device batch indices and a column of a host grid of expert indices, per grid dimension).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.bindings import zip_item
from h2dlint.analysis.element_writes import known_ndim
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance


@dataclass(frozen=True)
class HostIndex:
    """A host tensor ``index`` indexing a device tensor; ``indexed_proven``: the indexed tensor
    is itself proven on the device (else an index beside it is)."""

    index: cst.BaseExpression
    indexed_proven: bool


def host_index(
    provenance: Provenance,
    node: cst.Subscript,
    frame: Frame,
    ancestors: Sequence[cst.CSTNode],
) -> HostIndex | None:
    """The host index tensor of ``node`` (read, not written: ``ancestors`` end at its parent)
    when the indexed tensor is on the device; None otherwise."""
    indices = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
    if not indices:
        return None
    proven = provenance.where(node.value, frame) is Where.DEVICE
    if not proven and not any(provenance.where(i, frame) is Where.DEVICE for i in indices):
        return None
    for index in indices:
        if _host_tensor(provenance, index, frame, ancestors):
            return HostIndex(index, proven)
    return None


def _host_tensor(
    provenance: Provenance,
    index: cst.BaseExpression,
    frame: Frame,
    ancestors: Sequence[cst.CSTNode],
) -> bool:
    """A host tensor of one dimension or more (a 0-d one is read as a Python number), or a row
    of a host tensor of two or more, taken by the loop or comprehension around."""
    if provenance.where(index, frame).on_host:
        ndim = known_ndim(provenance, index, frame)
        if ndim is not None:
            return ndim >= 1
    if not isinstance(index, cst.Name):
        return False
    rows = _rows_of(index.value, ancestors)
    if rows is None:
        return False
    if isinstance(rows, cst.Attribute) and rows.attr.value in ("T", "mT"):
        rows = rows.value
    elif (
        isinstance(rows, cst.Call)
        and isinstance(rows.func, cst.Attribute)
        and rows.func.attr.value == "t"
        and not rows.args
    ):
        rows = rows.func.value
    if not provenance.where(rows, frame).on_host:
        return False
    ndim = known_ndim(provenance, rows, frame)
    return ndim is not None and ndim >= 2


def _rows_of(name: str, ancestors: Sequence[cst.CSTNode]) -> cst.BaseExpression | None:
    """What the innermost loop or comprehension around binding ``name`` iterates for it:
    ``x`` of ``for name in x``, the ``k``-th argument of ``for a, name in zip(y, x)``."""
    for node in reversed(ancestors):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return None
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            found = _bound_by(name, node.for_in.target, node.for_in.iter)
        elif isinstance(node, cst.For):
            found = _bound_by(name, node.target, node.iter)
        else:
            continue
        if found is not None:
            return found if isinstance(found, cst.BaseExpression) else None
    return None


def _bound_by(
    name: str, target: cst.BaseExpression, iterable: cst.BaseExpression
) -> cst.BaseExpression | bool | None:
    """The sequence whose rows ``target`` binds to ``name``; False when the target binds the
    name otherwise (shadowing: stop looking); None when it does not bind it."""
    if isinstance(target, cst.Name):
        return iterable if target.value == name else None
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    if not any(isinstance(e.value, cst.Name) and e.value.value == name for e in target.elements):
        return None
    found = zip_item(target, iterable, name)
    return found if found is not None else False

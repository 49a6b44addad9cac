"""Recognising host-to-device copies (``x.to(dev, ...)``, ``x.cuda(...)``, ``dst.copy_(x, ...)``)
and the joins whose fresh result they copy."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import (
    Provenance,
    first_positional,
    host_named,
    is_true,
    keyword,
)
from h2dlint.analysis.targets import Target
from h2dlint.analysis.torch_api import JOINS


def h2d_copy_source(
    provenance: Provenance, node: cst.Call, frame: Frame
) -> cst.BaseExpression | None:
    """The source of ``node`` when it is a copy (``x.to(dev)``, ``x.cuda()``,
    ``dst.copy_(x)``) that may go host to device (its destination is not provably host
    memory), else None."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in ("to", "cuda", "copy_"):
        return None
    method = func.attr.value
    if method == "copy_":
        source = first_positional(node)
        if source is None or host_named(func.value):
            return None
        if provenance.where(func.value, frame) not in (Where.DEVICE, Where.UNKNOWN):
            return None  # the destination is host memory: not a host-to-device copy
        return source
    if method == "to" and provenance.to_target(node, frame) is not Target.DEVICE:
        return None
    return func.value


def non_blocking_h2d_source(
    provenance: Provenance, node: cst.Call, frame: Frame
) -> cst.BaseExpression | None:
    """The source of ``node`` when it is a ``non_blocking=True`` copy that may go host to
    device (:func:`h2d_copy_source`), else None."""
    non_blocking = keyword(node, "non_blocking")
    if non_blocking is None or not is_true(non_blocking.value):
        return None
    return h2d_copy_source(provenance, node, frame)


def fresh_join(provenance: Provenance, call: cst.Call) -> bool:
    """``torch.cat``/``stack``-family call without ``out=``: it makes a fresh tensor."""
    return provenance.qualify(call.func) in JOINS and keyword(call, "out") is None


def fresh_joins(provenance: Provenance, source: cst.BaseExpression, frame: Frame) -> list[cst.Call]:
    """The fresh joins (:func:`fresh_join`) ``source`` is: itself, or the ones every binding
    that may reach it is. HTD104 judges copies of these; a join with ``out=`` is judged by
    its buffer, as any other tensor."""
    if isinstance(source, cst.Call):
        return [source] if fresh_join(provenance, source) else []
    if isinstance(source, cst.Name):
        values = provenance.bindings(frame).reaching(source)
        if values and all(isinstance(v, cst.Call) and fresh_join(provenance, v) for v in values):
            return [v for v in values if isinstance(v, cst.Call)]
    return []

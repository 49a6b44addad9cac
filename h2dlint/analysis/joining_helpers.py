"""Calls of a joining helper: a project function whose every ``return`` is a fresh join
(``torch.cat``/``stack`` without ``out=``, :func:`~h2dlint.analysis.copies.fresh_join`), written
in the return or bound to the returned name: ``def collate(xs): return torch.cat(xs)``, defined
in the module, imported from another one, or a method of ``self`` or of an object held on
``self``. The caller that copies the result to the device (``collate(xs).to(dev,
non_blocking=True)``, ``batch = self._collate(items); batch.cuda(non_blocking=True)``) copies a
fresh pageable tensor just as ``torch.cat(xs).to(dev, non_blocking=True)`` does (HTD104).

A helper that joins into ``out=`` a buffer, pins its result (``.pin_memory()``) or moves it to
the device returns no fresh join; one that joins device tensors (proven in the helper) is left
out too. What the helper's joins are made of is read in the helper: its parameters' placement is
unknown there, so the caller's copy decides, as for a join of unknown tensors in one function.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import first_positional
from h2dlint.analysis.copies import fresh_joins
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.returns import ReturnedValues
from h2dlint.walk import visit_read_only


@dataclass(frozen=True)
class JoiningHelper:
    """A helper whose every return is a fresh join: where it is defined, and whether every
    join's inputs are proven host memory (else their placement is unknown)."""

    function: cst.FunctionDef
    module: str
    host: bool


def _joins_returned(owner: Provenance, function: cst.FunctionDef) -> bool | None:
    """Whether every join ``function`` returns joins host tensors (True) or tensors of unknown
    placement (False); None when some return is not a fresh join, or joins device tensors."""
    collector = ReturnedValues()
    visit_read_only(function.body, collector)
    if collector.bare or collector.yields or not collector.values:
        return None
    frame = owner.index.frame_of(function)
    host = True
    for value in collector.values:
        joins = fresh_joins(owner, value, frame)
        if not joins:
            return None
        for join in joins:
            seq = first_positional(join)
            if seq is None or owner.where(join, frame) is Where.DEVICE:
                return None
            where = owner.sequence_where(seq, frame)
            if where is Where.DEVICE:
                return None
            host = host and where is Where.HOST
    return host


class JoiningHelpers:
    """The joining helpers of one file's calls, memoised per callee."""

    def __init__(self, provenance: Provenance) -> None:
        self.provenance = provenance
        self._known: dict[cst.FunctionDef, bool | None] = {}

    def called(
        self, source: cst.BaseExpression, frame: Frame
    ) -> list[tuple[cst.Call, JoiningHelper]]:
        """The calls of joining helpers ``source`` is: itself, or every call that may be bound
        to it (a name bound to something else gives nothing)."""
        provenance = self.provenance
        calls: list[cst.BaseExpression | None] = [source]
        if isinstance(source, cst.Name):
            calls = list(provenance.bindings(frame).reaching(source))
        found: list[tuple[cst.Call, JoiningHelper]] = []
        for call in calls:
            if not isinstance(call, cst.Call):
                return []
            helper = self._helper(call, frame)
            if helper is None:
                return []
            found.append((call, helper))
        return found

    def _helper(self, call: cst.Call, frame: Frame) -> JoiningHelper | None:
        func = call.func
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        qualified = self.provenance.qualify(func) or ""
        if qualified.partition(".")[0] in ("torch", "numpy", "np"):
            return None  # a library call (joins in-function are HTD104's own)
        found = self.provenance.callee(call, frame)
        if found is None:
            return None
        owner, function = found
        if function not in self._known:
            self._known[function] = _joins_returned(owner, function)
        host = self._known[function]
        if host is None:
            return None
        return JoiningHelper(function, owner.module_name or owner.context.path, host)

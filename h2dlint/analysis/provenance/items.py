"""The fact of an item of a list of tensors, whole: where the items are, pinned or not, and
whether they are contiguous, when every item agrees.

A KV offloader keeps one pinned host pool per layer (``self.host_caches =
[allocate_host_pool(n, shape, dtype) for c in gpu_caches]``, the helper in another module
allocating with ``pin_memory=True``) and copies blocks out of each (``for gpu, host in
zip(self.gpu_caches, self.host_caches)``): each item is the helper's pinned, contiguous tensor.
:meth:`~h2dlint.analysis.provenance.base.ProvenanceBase.sequence_where` answers only where the
items are (for a join); this keeps what a copy out of one needs. The list is a comprehension (the
fact of its element), a display (what its elements agree on), a name or a ``self``/known
object's attribute bound only to such lists, or bound empty and filled by ``.append``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import UNKNOWN_FACT, Fact, join
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance.common import MAX_DEPTH

if TYPE_CHECKING:
    from h2dlint.analysis.provenance.base import ProvenanceBase


def item_fact(source: ProvenanceBase, seq: cst.BaseExpression, frame: Frame, depth: int) -> Fact:
    """The fact every item of the list ``seq`` agrees on (not fresh: the item was made
    before the read); unknown when one item or binding is not known."""
    if depth > MAX_DEPTH:
        return UNKNOWN_FACT
    if isinstance(seq, cst.ListComp) and seq.for_in.inner_for_in is None:
        return _settled([source.fact(seq.elt, frame, depth + 1)])
    if isinstance(seq, (cst.List, cst.Tuple)):
        if not seq.elements or any(isinstance(e, cst.StarredElement) for e in seq.elements):
            return UNKNOWN_FACT
        return _settled([source.fact(e.value, frame, depth + 1) for e in seq.elements])
    if isinstance(seq, cst.Name):
        facts = []
        for value in source.bindings(frame).reaching(seq):
            if value is None:
                return UNKNOWN_FACT
            if isinstance(value, cst.List) and not value.elements:
                appended = source.appended(frame, seq.value)
                facts.append(_settled([source.fact(v, frame, depth + 1) for v in appended]))
            else:
                facts.append(item_fact(source, value, frame, depth + 1))
        return _settled(facts)
    if isinstance(seq, cst.Attribute):
        facts = []
        for owner, value, value_frame in source.attribute_values(seq, frame, depth + 1):
            if isinstance(value, cst.List) and not value.elements:
                added = owner.appended_to_attribute(value_frame.cls, seq.attr.value)
                facts.append(_settled([owner.fact(v, f, depth + 1) for v, f in added]))
            else:
                facts.append(item_fact(owner, value, value_frame, depth + 1))
        return _settled(facts)
    return UNKNOWN_FACT


def _settled(facts: list[Fact]) -> Fact:
    """What every fact agrees on, unknown when one is unknown (or there is none)."""
    if not facts or any(not f.known for f in facts):
        return UNKNOWN_FACT
    joined = join(facts)
    return Fact(joined.where, None, joined.contiguous) if joined.known else UNKNOWN_FACT

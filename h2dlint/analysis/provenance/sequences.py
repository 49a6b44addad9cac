"""Where the tensors of a sequence are, for the sequences that live outside the function
asking: a list a helper of the project returns, a list a class keeps on ``self``
(:meth:`ProvenanceBase.sequence_where` asks these)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.returns import returned_values

if TYPE_CHECKING:
    from h2dlint.analysis.provenance.base import ProvenanceBase


def agreed(wheres: list[Where]) -> Where:
    """DEVICE or HOST when every placement says so (HOST for any host kind), else UNKNOWN."""
    if wheres and all(w is Where.DEVICE for w in wheres):
        return Where.DEVICE
    if wheres and all(w.on_host for w in wheres):
        return Where.HOST
    return Where.UNKNOWN


def returned_sequence_where(
    provenance: ProvenanceBase, call: cst.Call, frame: Frame, depth: int
) -> Where:
    """The list a helper of the project returns (``positions = make_positions(...)``, the
    helper appending a host ``torch.arange`` per image): where the tensors of every list it
    returns are, judged in its own frame, when they agree; unknown for a call the project does
    not define, or a helper that yields or returns nothing."""
    from h2dlint.analysis.provenance.base import ProvenanceBase

    found = provenance.callee(call, frame, depth + 1)
    if found is None:
        return Where.UNKNOWN
    source, function = found
    assert isinstance(source, ProvenanceBase)
    own = source.index.frame_of(function)
    return agreed([source.sequence_where(v, own, depth + 1) for v in returned_values(function)])


def attribute_sequence_where(
    provenance: ProvenanceBase, seq: cst.Attribute, frame: Frame, depth: int
) -> Where:
    """``self.caches`` (or ``obj.caches`` of a known class), a list the class keeps: judged
    by every value it is assigned; one assigned empty (``self.caches = []``) by what the
    class's methods append to it (``self.caches.append(torch.empty(..., pin_memory=True))``)."""
    wheres = []
    for owner, value, value_frame in provenance.attribute_values(seq, frame, depth + 1):
        if isinstance(value, cst.List) and not value.elements:
            # Appended in any method, maybe far from the use: every item must agree.
            added = owner.appended_to_attribute(value_frame.cls, seq.attr.value)
            items = [owner.fact(v, f, depth + 1).where for v, f in added]
            if agreed(items) is Where.UNKNOWN:
                return Where.UNKNOWN
            wheres.append(items[0])
        else:
            wheres.append(owner.sequence_where(value, value_frame, depth + 1))
    return agreed(wheres)

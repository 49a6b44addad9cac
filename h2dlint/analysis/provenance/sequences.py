"""Where the tensors of a sequence are, for the sequences that live outside the function
asking: a list a helper of the project returns, a list a class keeps on ``self``
(:meth:`ProvenanceBase.sequence_where` asks these)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import libcst as cst

from h2dlint.analysis.facts import Fact, Where
from h2dlint.analysis.frames import Frame, ModuleIndex
from h2dlint.analysis.returns import returned_values

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource


@runtime_checkable
class SequenceSource(Protocol):
    """What these questions ask of a module's provenance (``ProvenanceBase`` answers them;
    naming it here would make the two modules import each other)."""

    @property
    def index(self) -> ModuleIndex: ...

    def callee(
        self, call: cst.Call, frame: Frame, depth: int = 0
    ) -> tuple[FactSource, cst.FunctionDef] | None: ...

    def sequence_where(self, seq: cst.BaseExpression, frame: Frame, depth: int = 0) -> Where: ...

    def fact(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> Fact: ...

    def appended_to_attribute(
        self, cls: cst.ClassDef | None, attr: str
    ) -> list[tuple[cst.BaseExpression, Frame]]: ...

    def attribute_values(
        self, node: cst.Attribute, frame: Frame, depth: int = 0
    ) -> Sequence[tuple[SequenceSource, cst.BaseExpression, Frame]]: ...


def agreed(wheres: list[Where]) -> Where:
    """DEVICE or HOST when every placement says so (HOST for any host kind), else UNKNOWN."""
    if wheres and all(w is Where.DEVICE for w in wheres):
        return Where.DEVICE
    if wheres and all(w.on_host for w in wheres):
        return Where.HOST
    return Where.UNKNOWN


def returned_sequence_where(
    provenance: SequenceSource, call: cst.Call, frame: Frame, depth: int
) -> Where:
    """The list a helper of the project returns (``positions = make_positions(...)``, the
    helper appending a host ``torch.arange`` per image): where the tensors of every list it
    returns are, judged in its own frame, when they agree; unknown for a call the project does
    not define, or a helper that yields or returns nothing."""
    found = provenance.callee(call, frame, depth + 1)
    if found is None:
        return Where.UNKNOWN
    source, function = found
    assert isinstance(source, SequenceSource)  # every module's provenance
    own = source.index.frame_of(function)
    return agreed([source.sequence_where(v, own, depth + 1) for v in returned_values(function)])


def attribute_sequence_where(
    provenance: SequenceSource, seq: cst.Attribute, frame: Frame, depth: int
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

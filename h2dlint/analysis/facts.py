"""The facts the provenance analysis proves about a tensor expression."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Where(enum.Enum):
    """Where a tensor's memory is."""

    PAGEABLE = "pageable host memory"
    PINNED = "pinned host memory"
    MAYBE_PINNED = "host memory pinned when enabled"
    HOST = "host memory, pinned or not"
    DEVICE = "an accelerator"
    UNKNOWN = "unknown"

    @property
    def on_host(self) -> bool:
        return self in (Where.PAGEABLE, Where.PINNED, Where.MAYBE_PINNED, Where.HOST)

    @property
    def pinned(self) -> bool:
        """Pinned, or pinned whenever pinning is enabled."""
        return self in (Where.PINNED, Where.MAYBE_PINNED)


@dataclass(frozen=True)
class Fact:
    """What is proven about one tensor expression. ``None`` fields are unknown.

    ``fresh``: the expression makes a new tensor (it owns its memory), as opposed to a view of
    another tensor's memory. ``contiguous``: its elements are dense in memory, so a copy from
    it is one DMA transfer; a non-contiguous view of pinned memory is copied as if it were
    pageable (measured: ``Pageable -> Device``).
    """

    where: Where = Where.UNKNOWN
    fresh: bool | None = None
    contiguous: bool | None = None

    @property
    def known(self) -> bool:
        return self.where is not Where.UNKNOWN

    def view(self, contiguous: bool | None) -> Fact:
        """A view of this tensor: same memory, possibly strided."""
        if contiguous is True and self.contiguous is not True:
            contiguous = None
        return Fact(self.where, False, contiguous)

    def derived(self) -> Fact:
        """A fresh tensor computed from this one (arithmetic, indexing with a tensor, clone):
        on the same device, and on the host always pageable, whatever this one was."""
        if self.where is Where.DEVICE:
            return Fact(Where.DEVICE, True, True)
        if self.where.on_host:
            return Fact(Where.PAGEABLE, True, True)
        return UNKNOWN_FACT


UNKNOWN_FACT = Fact()
PAGEABLE_FRESH = Fact(Where.PAGEABLE, True, True)
PINNED_FRESH = Fact(Where.PINNED, True, True)
DEVICE_FRESH = Fact(Where.DEVICE, True, True)


def in_place_kept(facts: list[Fact], in_place: int) -> list[Fact]:
    """The facts of an attribute's assignments less the unknown ones of its ``in_place``
    augmented assignments (``self.ptr += 1``), when every other assignment is known: an
    augmented assignment updates a tensor, a list or an array in place, where it is. (A number
    is unknown here, and ``self.total += loss`` may make it a tensor: then nothing is dropped.)"""
    known = [f for f in facts if f.known]
    return known if in_place and known and len(facts) - len(known) == in_place else facts


def join(facts: list[Fact]) -> Fact:
    """What holds for every one of ``facts`` (the value of a name bound several times)."""
    if not facts:
        return UNKNOWN_FACT
    first = facts[0]
    where = first.where if all(f.where is first.where for f in facts) else Where.UNKNOWN
    if where is Where.UNKNOWN and all(f.where.on_host for f in facts):
        where = Where.HOST
    fresh = first.fresh if all(f.fresh == first.fresh for f in facts) else None
    contiguous = first.contiguous if all(f.contiguous == first.contiguous for f in facts) else None
    return Fact(where, fresh, contiguous)

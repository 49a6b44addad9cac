"""Tuple targets of an assignment (``a, b = ...``): which names they bind, and where."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def names_in_tuple(targets: Sequence[cst.AssignTarget], name: str) -> bool:
    """Whether a tuple or list target among ``targets`` binds ``name`` as one of its elements."""
    return any(
        isinstance(t.target, (cst.Tuple, cst.List))
        and any(isinstance(e.value, cst.Name) and e.value.value == name for e in t.target.elements)
        for t in targets
    )


def position_in_tuple(targets: Sequence[cst.AssignTarget], name: str) -> int | None:
    """Where ``name`` is in a tuple target (``a, b = ...``), when no element is starred."""
    for target in targets:
        if not isinstance(target.target, (cst.Tuple, cst.List)):
            continue
        elements = target.target.elements
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        for at, element in enumerate(elements):
            if isinstance(element.value, cst.Name) and element.value.value == name:
                return at
    return None


def tuple_length(targets: Sequence[cst.AssignTarget]) -> int:
    """How many elements the first tuple or list target has (0 without one)."""
    for target in targets:
        if isinstance(target.target, (cst.Tuple, cst.List)):
            return len(target.target.elements)
    return 0

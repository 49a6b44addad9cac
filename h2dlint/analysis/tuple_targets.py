"""Tuple targets of an assignment (``a, b = ...``): which names they bind, where, and whether
they unpack a literal display element by element."""

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


def unpacked_target(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the tuple or list at the end of ``ancestors`` is (nested in) the target of an
    assignment that unpacks a literal tuple or list of as many values into its elements
    (``(a[m], b[m]) = (0.0, 0.0)``): each element is written with its own value. Unpacking
    anything else (``a[m], b[m] = t.unbind(0)``) is not read as writes here."""
    i = len(ancestors) - 1
    while i >= 0 and isinstance(ancestors[i], (cst.Tuple, cst.List)):
        if i >= 2 and isinstance(ancestors[i - 1], cst.AssignTarget):
            target, assign = ancestors[i], ancestors[i - 2]
            return (
                isinstance(assign, cst.Assign)
                and isinstance(target, (cst.Tuple, cst.List))
                and isinstance(assign.value, (cst.Tuple, cst.List))
                and len(assign.value.elements) == len(target.elements)
            )
        if i >= 1 and isinstance(ancestors[i - 1], cst.Element):
            i -= 2
            continue
        return False
    return False


def unpacked_pairs(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """The (target, value) pairs an assignment writes: itself, or, for a tuple or list target
    unpacking a literal tuple or list of as many values (``(x[m], y[m]) = (0.0, 0.0)``), each
    element with its value (nested alike). Unpacking anything else pairs nothing: what each
    element gets is not written here."""
    if not isinstance(target, (cst.Tuple, cst.List)):
        return [(target, value)]
    if (
        not isinstance(value, (cst.Tuple, cst.List))
        or len(value.elements) != len(target.elements)
        or any(isinstance(e, (cst.StarredElement)) for e in (*target.elements, *value.elements))
    ):
        return []
    pairs = []
    for written, given in zip(target.elements, value.elements, strict=True):
        pairs.extend(unpacked_pairs(written.value, given.value))
    return pairs

"""The facts of names unpacked from a call's result.

``polys, angles = self._decode(boxes)`` where ``_decode`` says ``-> tuple[np.ndarray,
np.ndarray]`` (numpy arrays: on the host), or ``ids, mask = build(n)`` where every ``return``
of ``build`` is a display of two values (``return torch.arange(n, device=d), torch.ones(n)``):
each name gets the fact of its position, read through the callee's annotation first (only
numpy arrays say where they are) and then what its returns agree on at that position. The
callee is what :func:`~h2dlint.analysis.cross_module.callee` resolves (a function of this
module, one imported from the project, a method on ``self`` or on an object of a known class).
A starred target, a length that is not the annotation's or the display's, ``tuple[X, ...]``
or a return that is no display (nor a name bound only to one): unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import UNKNOWN_FACT, Fact, Where, join
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance.common import (
    MAX_DEPTH,
    annotation_is,
    fixed_tuple_elements,
    returns_joined,
)

if TYPE_CHECKING:
    from h2dlint.analysis.provenance.base import ProvenanceBase


def unpacked_position(
    statement: cst.CSTNode, name: str
) -> tuple[cst.BaseExpression, int, int] | None:
    """``(value, position, length)`` when ``statement`` is ``a, b = value`` (or ``(a, b) =``,
    ``[a, b] =``) that binds ``name`` at ``position`` of a target of ``length`` names, with no
    starred element; else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign):
        return None
    for target in assign.targets:
        node = target.target
        if not isinstance(node, (cst.Tuple, cst.List)):
            continue
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        for at, element in enumerate(node.elements):
            if isinstance(element.value, cst.Name) and element.value.value == name:
                return assign.value, at, len(node.elements)
    return None


def display_element(
    value: cst.Tuple | cst.List, position: int, length: int
) -> cst.BaseExpression | None:
    """Element ``position`` of a tuple or list display unpacked into ``length`` names; None
    when the display has another length or a starred element."""
    elements = value.elements
    if len(elements) != length or any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    return elements[position].value


def element_fact(
    source: ProvenanceBase,
    value: cst.BaseExpression,
    position: int,
    length: int,
    frame: Frame,
    depth: int,
) -> Fact:
    """The fact of element ``position`` of ``value`` unpacked into ``length`` names: of a
    display of that length, of each branch of a conditional, of a name bound only to such
    values, of the call of a function of the project (:func:`returned_element_fact`). A numpy
    array is on the host."""
    if depth > MAX_DEPTH:
        return UNKNOWN_FACT
    if isinstance(value, (cst.Tuple, cst.List)):
        element = display_element(value, position, length)
        if element is None:
            return UNKNOWN_FACT
        fact = source.fact(element, frame, depth + 1)
        if not fact.known and source.is_numpy_array(element, frame, depth + 1):
            return Fact(Where.HOST)  # ``np.zeros(...)``: a numpy array, as annotated ones
        return fact
    if isinstance(value, cst.IfExp):
        return join(
            [
                element_fact(source, branch, position, length, frame, depth + 1)
                for branch in (value.body, value.orelse)
            ]
        )
    if isinstance(value, cst.Name):
        reaching = source.bindings(frame).reaching_bindings(value)
        if not reaching or any(b.value is None for b in reaching):
            return UNKNOWN_FACT
        return join(
            [
                element_fact(source, b.value, position, length, frame, depth + 1)
                for b in reaching
                if b.value is not None
            ]
        )
    if isinstance(value, cst.Call):
        found = source.callee(value, frame, depth + 1)
        if found is None:
            return UNKNOWN_FACT
        owner, function = found
        return returned_element_fact(_call_facts(owner), function, position, length)
    return UNKNOWN_FACT


def returned_element_fact(
    owner: ProvenanceBase, function: cst.FunctionDef, position: int, length: int
) -> Fact:
    """The fact of element ``position`` of what ``function`` returns, unpacked into
    ``length`` names: a numpy array by its ``tuple[...]`` annotation is on the host; else what
    every ``return`` agrees on at that position. A summary that does not depend on who asks
    (like ``return_fact``), memoised with a depth budget of its own."""
    key = (function, position, length)
    memo = owner.element_returns
    if key in memo:
        return memo[key]
    elements = tuple_elements(owner, function)
    if elements is not None and len(elements) != length:
        return UNKNOWN_FACT  # the annotation says another length: the code is not understood
    if elements is not None and annotation_is(owner, elements[position], owner.numpy_array_type):
        result = Fact(Where.HOST)
    else:
        if not owner._begin(key):
            return UNKNOWN_FACT
        try:
            result = returns_joined(
                owner, function, lambda v, frame: element_fact(owner, v, position, length, frame, 1)
            )
        finally:
            owner._in_progress.discard(key)
    memo[key] = result
    return result


def tuple_elements(
    owner: ProvenanceBase, function: cst.FunctionDef
) -> list[cst.BaseExpression] | None:
    """The element annotations of ``function``'s return annotation when it is a fixed-length
    ``tuple[...]``/``Tuple[...]`` (no ``...``); else None."""
    if function.returns is None:
        return None
    return fixed_tuple_elements(owner.qualify, function.returns.annotation)


def _call_facts(source: object) -> ProvenanceBase:
    """A module's fact source as the provenance it is (``Provenance.for_module``)."""
    from h2dlint.analysis.provenance.base import ProvenanceBase

    assert isinstance(source, ProvenanceBase)
    return source

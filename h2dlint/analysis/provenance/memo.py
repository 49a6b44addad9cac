"""The memo of provenance facts (``Provenance.fact``) and the cycle guards' bookkeeping under it.

Facts are memoised per (node, frame) for the file. A result depends on the depth it is asked at
only through the depth limit, and on the facts being computed around it only through the cycle
guards of attributes, bindings and helpers (``Provenance._begin``); so a result is kept when no
cycle guard answered during its computation, and is reused only at depths where the same
computation would stay within the limit (or at its own depth when it did not).

A guard that answered on a computation begun inside this one (a loop's rebinding reached again
from within) answers the same whenever this result is computed, so such a result is kept as if
no guard had answered: each ``_begin`` numbers its key (``_serial``), and a computation records
the earliest-numbered key whose guard answered inside it (``_earliest_hit``; -1 for an answer
cut short by ``MAX_COMPUTED_PER_QUESTION``).

A result a guard answered in on a computation begun further out is kept until the outermost
question returns (``_open_memo``): a loop updating a name under many branches reaches each
update along exponentially many paths, which differ only in which cycle guard answers first.
It is also kept by the set of computations in progress around it (``_guarded_memo``), for
later questions: computed again with the same guards open, it would take the same steps to the
same answer, unless it reused a result that an earlier computation of the open question left
(``_earliest_reuse``: then it stays in the question's memo only), or was cut short.
"""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from h2dlint.analysis.facts import UNKNOWN_FACT, Fact
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance.common import (
    MAX_COMPUTED_PER_QUESTION,
    MAX_DEPTH,
    NO_HIT,
    _Memo,
)


class Guards(Protocol):
    """What :func:`begin` reads and writes of a provenance analysis (``ProvenanceBase``)."""

    _in_progress: set[object]
    _cycles: int
    _began: dict[object, int]
    _serial: int
    _earliest_hit: int


class Memoising(Guards, Protocol):
    """What :func:`memoised_fact` reads and writes of a provenance analysis (``Provenance``)."""

    memoise: bool
    _memo: dict[tuple[cst.CSTNode, Frame], _Memo]
    _memo_at_depth: dict[tuple[cst.CSTNode, Frame, int], _Memo]
    _open_memo: dict[tuple[cst.CSTNode, Frame, int], tuple[_Memo, int, int]]
    _guarded_memo: dict[tuple[cst.CSTNode, Frame, int, frozenset[object]], _Memo]
    _earliest_reuse: int
    _deepest: int
    _open: int
    _computed: int

    def _note(self, depth: int) -> None: ...

    def _compute(self, node: cst.BaseExpression, frame: Frame, depth: int) -> Fact: ...


def begin(owner: Guards, key: object) -> bool:
    """Start the computation ``key`` (end it with ``owner._in_progress.discard(key)``);
    False, counted as a cycle, when it is already in progress further up."""
    if key in owner._in_progress:
        owner._cycles += 1
        # -1: a key added without ``begin`` (never one begun inside a computation).
        owner._earliest_hit = min(owner._earliest_hit, owner._began.get(key, -1))
        return False
    owner._in_progress.add(key)
    owner._serial += 1
    owner._began[key] = owner._serial
    return True


def memoised_fact(owner: Memoising, node: cst.BaseExpression, frame: Frame, depth: int) -> Fact:
    """``owner.fact(node, frame, depth)``, memoised as this module says."""
    owner._note(depth)
    if depth > MAX_DEPTH:
        return UNKNOWN_FACT
    if not owner.memoise:
        return owner._compute(node, frame, depth)
    key = (node, frame)
    memo = owner._memo.get(key)
    if memo is None or depth + memo.span > MAX_DEPTH:
        memo = owner._memo_at_depth.get((node, frame, depth))
    if memo is None:
        opened = owner._open_memo.get((node, frame, depth))
        if opened is not None:
            memo, hit, began = opened
            owner._earliest_hit = min(owner._earliest_hit, hit)
            owner._earliest_reuse = min(owner._earliest_reuse, began)
    if memo is not None:
        owner._note(depth + memo.span)
        return memo.fact
    if not owner._open:
        owner._computed = 0
    elif owner._computed >= MAX_COMPUTED_PER_QUESTION:
        owner._cycles += 1  # an answer cut short: kept no longer than a cycle guard's
        owner._earliest_hit = owner._earliest_reuse = -1
        return UNKNOWN_FACT
    owner._computed += 1
    guards = frozenset(owner._in_progress) if owner._in_progress else None
    if guards is not None:
        memo = owner._guarded_memo.get((node, frame, depth, guards))
        if memo is not None:
            return _reuse_guarded(owner, memo, node, frame, depth, guards)
    outer, cycles = owner._deepest, owner._cycles
    outer_hit, outer_reuse = owner._earliest_hit, owner._earliest_reuse
    began = owner._serial  # keys begun inside this computation count from here
    owner._deepest = depth
    owner._earliest_hit = owner._earliest_reuse = NO_HIT
    owner._open += 1
    try:
        result = owner._compute(node, frame, depth)
    finally:
        deepest = owner._deepest
        owner._deepest = max(outer, deepest)
        hit, reused = owner._earliest_hit, owner._earliest_reuse
        owner._earliest_hit = min(outer_hit, hit)
        owner._earliest_reuse = min(outer_reuse, reused)
        owner._open -= 1
        if not owner._open:
            owner._open_memo.clear()
    span = deepest - depth
    if owner._cycles != cycles and hit <= began:
        if owner._open:  # by depth: such a computation often reaches the depth limit
            owner._open_memo[(node, frame, depth)] = (_Memo(result, span), hit, began)
        if guards is not None and reused > began:
            owner._guarded_memo[(node, frame, depth, guards)] = _Memo(result, span)
    elif deepest <= MAX_DEPTH:
        owner._memo[key] = _Memo(result, span)
    else:
        owner._memo_at_depth[(node, frame, depth)] = _Memo(result, span)
    return result


def _reuse_guarded(
    owner: Memoising,
    memo: _Memo,
    node: cst.BaseExpression,
    frame: Frame,
    depth: int,
    guards: frozenset[object],
) -> Fact:
    """A result a cycle guard answered in, computed before with the same computations in
    progress around it and from nothing an earlier computation of the open question left
    (``fact``): computed again, it would take the same steps to the same answer."""
    owner._note(depth + memo.span)
    owner._cycles += 1
    hit = min(owner._began.get(guard, -1) for guard in guards)
    owner._earliest_hit = min(owner._earliest_hit, hit)
    if owner._open:
        owner._open_memo[(node, frame, depth)] = (memo, hit, owner._serial)
    return memo.fact

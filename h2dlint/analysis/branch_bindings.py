"""Names bound on every path through a compound statement, for the bindings that reach a use.

:class:`~h2dlint.analysis.bindings.Bindings` keeps, of the bindings before a use, only the last
one when its block encloses the use; else all of them. That leaves a name bound in every arm of
an ``if``/``else`` (or inside a ``with`` block) joined with what it was before::

    _, idx = quantizer.forward_idx(x)       # unknown
    if encoder:
        with torch.no_grad():
            _, idx = quantizer.forward_idx(x)
            idx = idx.squeeze(0).cpu()
    else:
        ...
        idx = idx.squeeze(0).cpu()
    result.append(idx)                      # only the two ``.cpu()`` copies reach here

This module finds, among the statements that precede the use in the blocks around it, the
innermost one that binds the name on every path through it (a line that binds it, an ``if``
whose arms all do or end in ``raise``, ``return``, ``continue`` or ``break``, and that has an
``else`` or a type test saying the skipping path holds no tensor (``host_guarded_rebinds``), a
``with`` whose block does, and so on nested) and
keeps of the bindings before it only those that leave it: what its arms bind last. Loops, ``try``
statements and ``match`` may run their blocks zero times or leave them early, so they never
bind on every path; an arm written on the ``if`` line (``if c: x = 1``) is not looked into.
Exceptions are not paths here (a ``with`` whose context manager swallows one is not told apart),
as nowhere else in the bindings.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypeVar

import libcst as cst

from h2dlint.analysis.host_guarded_rebinds import skipped_only_for_host


class BindingLike(Protocol):
    @property
    def statement(self) -> cst.CSTNode: ...

    @property
    def order(self) -> int: ...


B = TypeVar("B", bound=BindingLike)
Ancestors = Callable[[cst.CSTNode], tuple[cst.CSTNode, ...]]


def through_branches(
    use_statement: cst.CSTNode,
    before: Sequence[B],
    carried: Sequence[B],
    order: Mapping[cst.CSTNode, int],
    ancestors: Ancestors,
) -> tuple[list[B], list[B]] | None:
    """``before`` and ``carried`` (the bindings before the use's statement in source order,
    and those later in a loop around it) less the ones a statement that binds the name on every
    path kills on the way to ``use_statement``; None when no such statement precedes it."""
    chain = (use_statement, *ancestors(use_statement))
    for child, block in itertools.pairwise(chain):
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            continue
        body = block.body
        position = next((i for i, s in enumerate(body) if s is child), None)
        if position is None:
            continue
        for statement in reversed(body[:position]):
            mine = [b for b in before if _inside(b, statement, ancestors)]
            if not mine:
                continue
            leaving, every_path = _exits(statement, mine, ancestors)
            if not every_path:
                continue
            kept = [
                b
                for b in before
                if any(b is e for e in leaving)
                or (b.order > order[statement] and not any(b is m for m in mine))
            ]
            around = _loops(statement, ancestors)
            use_loops = _loops(use_statement, ancestors)
            # A binding later in a loop reaches the use through the loop's start; from there
            # the path passes ``statement`` only if that loop encloses it.
            still = [
                b for b in carried if not (_loops(b.statement, ancestors) & use_loops) <= around
            ]
            return kept, still
    return None


def other_arm(
    binding_statement: cst.CSTNode, use_statement: cst.CSTNode, ancestors: Ancestors
) -> bool:
    """Whether ``binding_statement`` sits in one arm of an ``if`` and ``use_statement`` in
    another (the ``if`` body and its ``else``/``elif``) with no loop around that ``if``: no path
    runs both, so the binding cannot reach the use. Source order alone says it may
    (``if shift: labels = shift.reshape(-1)`` / ``else: labels = labels[..., 1:]``: the
    ``labels`` the ``else`` arm reads is the parameter, not the ``if`` arm's reshape)."""
    bound = (binding_statement, *ancestors(binding_statement))
    position = {id(node): i for i, node in enumerate(bound)}
    use_chain = (use_statement, *ancestors(use_statement))
    for child, parent in itertools.pairwise(use_chain):
        at = position.get(id(parent))
        if at is None:
            continue
        if not isinstance(parent, cst.If) or _loops(parent, ancestors):
            return False  # the innermost block around both, or an ``if`` a loop repeats
        arms = {id(parent.body), id(parent.orelse)}
        return id(child) in arms and id(bound[at - 1]) in arms and bound[at - 1] is not child
    return False


def _inside(binding: BindingLike, statement: cst.CSTNode, ancestors: Ancestors) -> bool:
    return binding.statement is statement or statement in ancestors(binding.statement)


def _loops(node: cst.CSTNode, ancestors: Ancestors) -> frozenset[cst.CSTNode]:
    return frozenset(n for n in ancestors(node) if isinstance(n, (cst.For, cst.While)))


def _exits(statement: cst.CSTNode, mine: Sequence[B], ancestors: Ancestors) -> tuple[list[B], bool]:
    """The bindings among ``mine`` (those inside ``statement``) that may leave ``statement``,
    and whether it binds the name on every path through it."""
    own = [b for b in mine if b.statement is statement]
    if isinstance(statement, cst.SimpleStatementLine):
        return own[-1:], bool(own)
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return own, bool(own)
    if isinstance(statement, cst.If):
        arms: list[tuple[list[B], bool]] = [_block(statement.body, mine, ancestors)]
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            inner = [b for b in mine if _inside(b, orelse, ancestors)]
            arms.append(_exits(orelse, inner, ancestors))
        elif isinstance(orelse, cst.Else):
            arms.append(_block(orelse.body, mine, ancestors))
        else:
            # no ``else``: the skipping path binds nothing, unless the test says the name holds
            # no tensor there (``if torch.is_tensor(x): x = x.cpu()``)
            body = arms[0][0]
            host = arms[0][1] and skipped_only_for_host(statement.test, [b.statement for b in body])
            arms.append(([], host))
        leaving = [b for exits, _ in arms for b in exits]
        if all(every for _, every in arms):
            return leaving, True
        return [*own, *leaving], bool(own)
    if isinstance(statement, cst.With):
        exits, every = _block(statement.body, mine, ancestors)
        return (exits, True) if every else ([*own, *exits], bool(own))
    return list(mine), False


def _block(block: cst.BaseSuite, mine: Sequence[B], ancestors: Ancestors) -> tuple[list[B], bool]:
    if not isinstance(block, cst.IndentedBlock):
        return list(mine), False  # ``if c: x = 1``: its bindings belong to the ``if`` itself
    leaving: list[B] = []
    every = False
    for statement in block.body:
        if _leaves(statement):
            return [], True  # ``raise``, ``return``: no path goes on past the block
        inner = [b for b in mine if _inside(b, statement, ancestors)]
        if not inner:
            continue
        exits, always = _exits(statement, inner, ancestors)
        if always:
            leaving, every = list(exits), True
        else:
            leaving.extend(exits)
    return leaving, every


# Statements after which no path falls through to the next one.
_LEAVING = (cst.Raise, cst.Return, cst.Continue, cst.Break)


def _leaves(statement: cst.CSTNode) -> bool:
    """Whether ``statement`` is a line that ends its block's paths (``raise ValueError(...)``,
    ``return``, ``continue``, ``break``): an arm ending so binds nothing for what follows."""
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, _LEAVING) for small in statement.body
    )

"""Calls of a helper that moves the items of an argument one by one: whether the project may
define such a mover of the called name, whether a call runs again and again (in a loop, on a hot
path), whether a plain-name call is shadowed, and each function's per-item loops. HTD101 (a
per-item transfer) asks these to flag the repeated call of a mover, not only its loop.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.bindings import COMPREHENSIONS
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.loop_iterables import tiny_iterable
from h2dlint.analysis.loops import (
    GatheringLoop,
    gathering_comprehension,
    gathering_for,
    gathering_while,
    mover_loops,
)
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import FileContext, SharedKey

# The per-item loops of each function of the file that moves its items (computed once).
_MOVERS: SharedKey[dict[cst.FunctionDef, dict[str, GatheringLoop]]] = SharedKey("movers")


def may_be_mover(provenance: Provenance, func: cst.Name | cst.Attribute) -> bool:
    """Cheap gate before resolving a call into another module (which parses it): the
    project must define a per-item mover of that name. Names defined in this module are
    left to the resolution itself."""
    project = provenance.project
    if project is None:
        return True
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == provenance.current_frame().self_name
    ):
        return True  # ``self.m(...)``: resolved in this module only
    name = func.value if isinstance(func, cst.Name) else func.attr.value
    if name in provenance.index.functions:
        return True
    if any(name in methods for methods in provenance.index.methods.values()):
        return True
    return project.may_define_mover(name)


def shadowed(context: FileContext, node: cst.Call, function: cst.FunctionDef) -> bool:
    """Whether a plain-name call does not call the module's function of that name: a
    local of the same name, or the function calling itself (a recursive mover)."""
    if not isinstance(node.func, cst.Name):
        return False
    provenance = Provenance.of(context)
    frame = provenance.current_frame()
    return frame.function is function or bool(provenance.bindings(frame).of(node.func.value))


def shared_mover_loops(
    context: FileContext, owner: Provenance, function: cst.FunctionDef
) -> dict[str, GatheringLoop]:
    """The per-item loops of ``function`` (of ``owner``'s module) that move the items of one of
    its parameters, by parameter (computed once per function and file)."""
    movers = context.shared(_MOVERS, dict)
    if function not in movers:
        movers[function] = mover_loops(function, owner, owner.index.frame_of(function))
    return movers[function]


_LOOPS = frozenset({cst.For, cst.While})
_COMPREHENSIONS = frozenset(COMPREHENSIONS)


def repeats_here(context: FileContext, node: cst.Call) -> bool | None:
    """Whether ``node``, the call being visited, runs again and again, as far as its own
    function tells: True in the body of a loop (over requests, batches, steps) of its
    function; False where it surely does not repeat; None when that rests on whether its
    function is hot (:func:`hot_call`: asked last, as the project's callers of a method are
    the costliest question)."""
    ancestors = [*context.ancestors, node]
    for i in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[i - 1], ancestors[i]
        kind = parent.__class__  # tested by class: these node classes have no subclasses
        if kind in _LOOPS and child is parent.body:  # type: ignore[attr-defined]
            if not (kind is cst.For and tiny_iterable(parent.iter)):  # type: ignore[attr-defined]
                return True
        elif kind in _COMPREHENSIONS and child.__class__ is not cst.CompFor:
            return True
        elif kind is cst.Lambda or kind is cst.ClassDef:
            return False
        elif kind is cst.FunctionDef:
            hot = HotPaths.of(context)
            return None if hot.could_be_hot_at(ancestors[:i], ask_project=False) else False
    return False


def hot_call(context: FileContext) -> bool:
    """Whether the function around the call being visited is hot (where :func:`repeats_here`
    left it open)."""
    ancestors = context.ancestors
    for i in range(len(ancestors) - 1, -1, -1):
        if isinstance(ancestors[i], cst.FunctionDef):
            return HotPaths.of(context).why_hot_at(ancestors[: i + 1]) is not None
    return False


def gathered_per_item(
    ancestors: list[cst.CSTNode], node: cst.CSTNode, provenance: Provenance
) -> bool:
    """Whether ``node`` (``torch.tensor(row, device=dev)``) is inside the nearest loop or
    comprehension around it, and that loop is a per-item transfer (HTD101's to report: its
    body does nothing but such copies)."""
    frame = provenance.current_frame()
    for ancestor in reversed(ancestors):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if isinstance(ancestor, COMPREHENSIONS):
            return gathering_comprehension(ancestor, provenance, frame) is not None
        if isinstance(ancestor, cst.For):
            return gathering_for(ancestor, provenance, frame) is not None
        if isinstance(ancestor, cst.While):
            return gathering_while(ancestor, provenance, frame) is not None
    return False

"""What the constructions of a class pass its ``__init__``: :func:`argument_flow.passed` for a
constructor, called through the class's name (``ProbMask(B, H, L, index, scores,
device=V.device)``) rather than its own (split out of ``argument_flow.py``)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.argument_flow import (
    MAX_CALL_SITES,
    Argument,
    Passed,
    Slot,
    _default,
    _slot,
    name_uses,
    passed,
    slot_argument,
)
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.other_callers import called_elsewhere
from h2dlint.project.passed_sites import Site, remote_sites


def passed_or_constructed(
    source: FactSource, function: cst.FunctionDef, name: str
) -> Passed | None:
    """:func:`~h2dlint.analysis.argument_flow.passed`, and for the ``__init__`` of a top-level
    class of the module without bases, what its constructions pass (:func:`constructed`)."""
    cls = source.index.owner.get(function)
    if cls is None or function.name.value != "__init__" or cls.bases:
        return passed(source, function, name)
    slot = _slot(function, name, source.index.frame_of(function), True)
    return constructed(source, function, name, slot) if slot is not None else None


def constructed(
    source: FactSource, function: cst.FunctionDef, name: str, slot: Slot
) -> Passed | None:
    """:func:`passed` for the ``__init__`` of a class with no bases: what every construction
    ``Cls(...)`` passes (session 31: neuralforecast's ``ProbMask(B, H, L, index, scores,
    device=V.device)`` of ``def __init__(self, ..., device="cpu")``). Every reference to the
    class's name in its module must be such a call (a subclass, a factory handed the class:
    not all constructions are seen), and every call of the name elsewhere must be told."""
    cls = source.index.owner[function]
    called = cls.name.value
    if source.index.classes.get(called) is not cls:
        return None
    found: list[Argument] = []
    for use in name_uses(source).get(called, []):
        call = use.call
        if call is None or not (isinstance(call.func, cst.Name) and call.func.value == called):
            return None
        told, argument = slot_argument(call, slot)
        if not told:
            return None
        if argument is None:
            default = _default(function, name)
            if default is None:
                return None
            found.append(Argument(source, default, Frame(source.context.module)))
        else:
            found.append(Argument(source, argument, use.frame))
        if len(found) > MAX_CALL_SITES:
            return None
    elsewhere = constructions_elsewhere(source, called, slot, _default(function, name), found)
    if elsewhere is None:
        return None
    codes, pending = elsewhere
    return Passed(found, codes, tuple(pending)) if found or codes else None


def constructions_elsewhere(
    source: FactSource,
    own: str,
    slot: Slot,
    default: cst.BaseExpression | None,
    found: list[Argument],
) -> tuple[list[str], list[tuple[Site, Slot]]] | None:
    """The codes that the other modules' calls of the module's top-level name ``own`` (a class
    they construct) pass for ``slot``, and the ``?`` ones to ask in their own modules
    (:mod:`~h2dlint.analysis.chained_arguments`); a call that leaves the parameter to
    ``default`` adds the default to ``found``. Empty when no other module calls the name; None
    when a call is not known, the default is needed and unknown, or the calls are too many."""
    codes: list[str] = []
    pending: list[tuple[Site, Slot]] = []
    project, module = source.project, source.module_name
    if project is None or module is None or not called_elsewhere(source, own):
        return codes, pending
    sites = remote_sites(project.caller_index(), f"{module}.{own}", False)
    if sites is None or len(found) + len(sites) > MAX_CALL_SITES:
        return None
    for site in sites:
        code = site.code(slot.position, slot.name)
        if code is None:
            return None
        if not code:  # the call leaves it to its default
            if default is None:
                return None
            found.append(Argument(source, default, Frame(source.context.module)))
            continue
        codes.append(code)
        if code == "?":
            pending.append((site, slot))
    return codes, pending

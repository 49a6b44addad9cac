"""Which units of a file may run per step: the answer to ``hot`` candidate terms, from the
analysis's names for steps and run-once code and from the project index (see
:mod:`h2dlint.candidate_hot`, which records the units on the ``ast`` walk)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from h2dlint.analysis.hot_names import (
    HOT_ENTRY_POINTS,
    METHOD_ONLY,
    diagnostic_name,
    name_reason,
    state_builder_reason,
)
from h2dlint.analysis.once import once_name
from h2dlint.analysis.step_loops import step_loop_reason
from h2dlint.candidate_hot import HOOKS, Unit

if TYPE_CHECKING:
    from h2dlint.candidate_terms import Candidates
    from h2dlint.candidates import Summary
    from h2dlint.project.index import ProjectIndex


def _may_be_step(name: str, cls: str | None) -> bool:
    """Whether the analysis could take a function of this name (a method of ``cls``) for an
    entry point or a step by its name (:meth:`HotPaths._entry_reason`, ``_hot_name``), leaving
    out what would make it cold."""
    if name in HOT_ENTRY_POINTS and (cls is not None or name not in METHOD_ONLY):
        return True
    if cls is not None and (name in ("build", "_build") or state_builder_reason(name, cls)):
        return True
    return name_reason(name, True) is not None or name_reason(name, False) is not None


def _cold(unit: Unit) -> bool:
    """Whether the analysis surely takes ``unit`` for cold by its name: ``once_by_name`` is
    true whenever ``once_name`` is, but for the per-step builders excepted here too."""
    name, cls = unit.name, unit.cls
    if unit.nested or unit.qualified is None or name in ("build", "_build"):
        return False
    if state_builder_reason(name, cls) is not None:  # a per-step state builder
        return False
    return diagnostic_name(name) or once_name(name)


def _step_name(name: str, cls: str | None, bases: tuple[str, ...] = ()) -> bool:
    """A caller's verdict for the project index: a possible step (True), else possibly hot
    through its own callers (False); never cold (None), which would end a chain."""
    return _may_be_step(name, cls)


# How far :class:`HotUnits` asks: its module's own facts only, then also the callers the project
# index finds hot by name, then also the loops of steps around calls (the costliest question).
LOCAL, CALLERS, STEP_LOOPS = 0, 1, 2


class HotUnits:
    """Which units of one file may be hot (see the module docs); asked per unit, lazily, up to
    :attr:`level`: a file that its own facts admit asks the project index nothing
    (:func:`admits` matches at each level in turn)."""

    def __init__(
        self,
        units: list[Unit],
        source: bytes | None,
        project: ProjectIndex | None,
        module: str | None,
        configured_hot: bool = False,
    ) -> None:
        self.units = units
        self.project = project if module is not None else None
        self.module = module
        self._all = configured_hot or source is None or HOOKS in source
        self._local: set[int] | None = None
        self.level = STEP_LOOPS
        # Per level: the project index's answers so far.
        self._asked: tuple[dict[int, bool], dict[int, bool]] = ({}, {})

    def __call__(self, unit: int, device: bool) -> bool:
        found = self.units[unit]
        if self._all or found.qualified is None:
            return True
        if _cold(found):
            return False
        if device or unit in self.local:
            return True
        if self.project is None or self.level == LOCAL:
            return False
        full = f"{self.module}.{found.qualified}"
        known = self._asked[0].get(unit)
        if known is None:
            known = self._asked[0][unit] = self.project.hot_reason(full, _step_name) is not None
        if known or self.level == CALLERS:
            return known
        known = self._asked[1].get(unit)
        if known is None:
            found_loop = step_loop_reason(self.project, full, _step_name)
            known = self._asked[1][unit] = found_loop is not None
        return known

    @property
    def local(self) -> set[int]:
        """The units hot by their module's own facts: steps by name, what they call."""
        if self._local is None:
            units = self.units
            hot = {i for i, u in enumerate(units) if not _cold(u) and _may_be_step(u.name, u.cls)}
            by_name: dict[str, list[int]] = {}
            for i, unit in enumerate(units):
                if not _cold(unit):
                    by_name.setdefault(unit.name, []).append(i)
            if hot:
                hot.update(i for i, unit in enumerate(units) if unit.nested)
            pending = list(hot)
            while pending:
                for name in units[pending.pop()].calls:
                    for callee in by_name.get(name, ()):
                        if callee not in hot:
                            hot.add(callee)
                            pending.append(callee)
            self._local = hot
        return self._local


def admits(wanted: Candidates, summary: Summary) -> bool:
    """Whether ``summary`` matches ``wanted``: asked with the module's own facts first, then
    with the project index's callers, then with their loops of steps, so that the costlier
    questions are asked only of files the cheaper answers did not admit. The same answer as
    one match at the last level."""
    hot = summary.hot
    if not isinstance(hot, HotUnits) or hot.project is None:
        return wanted.matches(summary)
    try:
        for level in (LOCAL, CALLERS, STEP_LOOPS):
            hot.level = level
            if wanted.matches(summary):
                return True
        return False
    finally:
        hot.level = STEP_LOOPS

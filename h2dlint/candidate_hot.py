"""Which functions of a file may run per step, decided on the CPython ``ast`` tree before any
libcst parse: the ``hot`` of a candidate term (:mod:`h2dlint.candidates`).

A rule that reports only on hot paths (HTD202) reports only in a function that
:mod:`h2dlint.analysis.hot_paths` finds hot, or in a ``for`` loop whose every iteration runs
device work (:mod:`h2dlint.analysis.device_loops`). This is a superset of both, per *unit* (a
function of the module that is not inside another function; the functions nested in it are as
hot as it is, in the analysis too):

- a unit whose name says it runs once (``__init__``, ``setup``, ``load_*``: ``once_name``) or is
  a diagnostic aid (``_debug_*``) is never hot, nor is anything in it; unless a function is
  nested in it (a closure ``__init__`` stores on ``self`` may run from a hot ``__call__``);
- a unit named as an entry point or a step (``forward``, ``training_step``, ``*_step``...:
  whatever name the analysis could take for one, ignoring what makes it cold) is hot, and so is
  every unit whose name a hot unit calls (``self.m(...)``, ``f(...)``, ``self.attr.m(...)``:
  any call ending in the name), and every unit with a nested function once any unit is hot;
- any other unit is hot when the project index says so, asked as the analysis asks it
  (:meth:`h2dlint.project.callers.CallerIndex.hot_reason` and
  :func:`h2dlint.analysis.step_loops.step_loop_reason`) with every caller's name taken for a
  possible step (never cold);
- code in a ``for`` loop whose body calls ``.backward``, ``.step``, ``.replay``, ``.cuda`` or
  ``.to`` (the device work the analysis looks for) is hot in any unit not cold by its name;
- everything is hot in a file that registers hooks (``register_forward_hook``: which functions
  run as hooks is the analysis's question), in a unit the module does not place at its top
  level or in a top-level class (the index does not name it), or when ``hot-functions`` are
  configured.

Without a project index (a file alone) no caller elsewhere is asked about, as in the analysis.
The modules the index reads for an answer are recorded as the file's dependencies, so that a
cached verdict is dropped when a caller changes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from h2dlint.project.index import ProjectIndex

# Method calls that make a ``for`` loop's iterations device work (``_DeviceWork`` of
# :mod:`h2dlint.analysis.device_loops`: a backward pass, an optimizer step, a graph replay, a
# copy to the device).
DEVICE_WORK = frozenset({"backward", "step", "replay", "cuda", "to"})
# Text of a file that registers hooks (``register_forward_hook``, ``register_full_backward_...``):
# :func:`h2dlint.analysis.hot_calls.hook_functions` looks no further without it.
HOOKS = b"register_f"


@dataclass
class Unit:
    """A function of the module not inside another function: its name, ``Class.name`` or
    ``name`` where the module places it at its top level or in a top-level class (else None),
    the names it calls (its nested functions' too), and whether a function is nested in it."""

    name: str
    qualified: str | None
    calls: set[str] = field(default_factory=set)
    nested: bool = False

    @property
    def cls(self) -> str | None:
        head, dot, _ = (self.qualified or "").rpartition(".")
        return head if dot else None


def placed_functions(tree: ast.AST) -> dict[int, str]:
    """``id`` of each function at the module's top level or in a top-level class's body ->
    ``name`` or ``Class.name``: the functions the project index names."""
    placed: dict[int, str] = {}
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in getattr(tree, "body", ()):
        if isinstance(node, functions):
            placed[id(node)] = node.name
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, functions):
                    placed[id(member)] = f"{node.name}.{member.name}"
    return placed


def _may_be_step(name: str, cls: str | None) -> bool:
    """Whether the analysis could take a function of this name (a method of ``cls``) for an
    entry point or a step by its name (:meth:`HotPaths._entry_reason`, ``_hot_name``), leaving
    out what would make it cold."""
    from h2dlint.analysis.hot_names import (
        HOT_ENTRY_POINTS,
        METHOD_ONLY,
        name_reason,
        state_builder_reason,
    )

    if name in HOT_ENTRY_POINTS and (cls is not None or name not in METHOD_ONLY):
        return True
    if cls is not None and (name in ("build", "_build") or state_builder_reason(name, cls)):
        return True
    return name_reason(name, True) is not None or name_reason(name, False) is not None


def _cold(unit: Unit) -> bool:
    """Whether the analysis surely takes ``unit`` for cold by its name: ``once_by_name`` is
    true whenever ``once_name`` is, but for the per-step builders excepted here too."""
    from h2dlint.analysis.hot_names import diagnostic_name
    from h2dlint.analysis.once import once_name, per_step_state_builder

    name, cls = unit.name, unit.cls
    if unit.nested or unit.qualified is None or name in ("build", "_build"):
        return False
    if cls is not None and per_step_state_builder(name, cls):
        return False
    return diagnostic_name(name) or once_name(name)


def _step_name(name: str, cls: str | None, bases: tuple[str, ...] = ()) -> bool:
    """A caller's verdict for the project index: a possible step (True), else possibly hot
    through its own callers (False); never cold (None), which would end a chain."""
    return _may_be_step(name, cls)


class HotUnits:
    """Which units of one file may be hot (see the module docs); asked per unit, lazily."""

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
        self._asked: dict[int, bool] = {}

    def __call__(self, unit: int, device: bool) -> bool:
        found = self.units[unit]
        if self._all or found.qualified is None:
            return True
        if _cold(found):
            return False
        if device or unit in self.local:
            return True
        known = self._asked.get(unit)
        if known is None:
            known = self._asked[unit] = self._project_hot(found.qualified)
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

    def _project_hot(self, qualified: str) -> bool:
        if self.project is None:
            return False
        from h2dlint.analysis.step_loops import step_loop_reason

        full = f"{self.module}.{qualified}"
        return (
            self.project.hot_reason(full, _step_name) is not None
            or step_loop_reason(self.project, full, _step_name) is not None
        )

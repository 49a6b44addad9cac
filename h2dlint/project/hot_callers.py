"""Whether a function runs per step because of its callers in other modules: the walk up the
project's call edges (:mod:`h2dlint.project.callers` finds each function's callers).

A hop that crosses modules is counted (:data:`MAX_HOPS`): each may read more modules. A hop
within the module the caller was found in is not (``execute_model`` -> ``self._encode(...)``
-> another module's helper): that module is read already, and helpers calling helpers of their
own class are how engines split a step. :data:`MAX_STEPS` bounds the walk as a whole (a loop
of calls within one module ends there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

# Hops between modules followed up the call graph from the function asked about.
MAX_HOPS = 2
# Hops of any kind.
MAX_STEPS = 3


class CallerLike(Protocol):
    """What the walk reads of a caller (``callers.Caller``)."""

    @property
    def module(self) -> str: ...
    @property
    def qualified(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def cls(self) -> str | None: ...
    @property
    def bases(self) -> tuple[str, ...]: ...


C = TypeVar("C", bound=CallerLike)
HotName = Callable[[str, str | None, tuple[str, ...]], "bool | None"]


def hot_reason(
    callers: Callable[[str, bool], Iterable[C]],
    home: Callable[[str], str],
    qualified: str,
    hot_name: HotName,
    skip: Callable[[C, str], bool] | None = None,
    hops: int = 0,
    steps: int = 0,
) -> str | None:
    """Why the top-level function or method ``qualified`` runs per step: the hot function of
    another module that calls it (directly, or through more calls, see the module's
    docstring); None when no caller is known to be hot. ``callers(q, home_only)``: the
    functions that call ``q`` (only those of its own module: no other module is read);
    ``home(q)``: the module that defines ``q``; ``skip(caller, q)``: calls of ``q`` that do not
    count (the analysis reads where the call is: under a branch taken every N steps). ``hops``: the
    modules crossed to reach ``qualified``."""
    if steps >= MAX_STEPS:
        return None
    # The first question comes from the analysis of the function's own file, which knows
    # which of its module's functions are hot by name (under its guards): a caller there
    # counts only on a path that crosses modules (it is hot through another module).
    own = home(qualified)
    for caller in callers(qualified, hops >= MAX_HOPS):
        crossed = hops + (caller.module != own)
        if crossed > MAX_HOPS:
            continue
        where = f"{caller.cls}.{caller.name}" if caller.cls else caller.name
        verdict = hot_name(caller.name, caller.cls, caller.bases)
        if verdict is not None and skip is not None and skip(caller, qualified):
            continue
        if verdict and not (steps == 0 and caller.module == own):
            return f"called from `{where}()` in {caller.module}"
        if verdict is not None and caller.qualified != qualified:
            deeper = hot_reason(callers, home, caller.qualified, hot_name, skip, crossed, steps + 1)
            if deeper is not None:
                return f"called from `{where}()` in {caller.module}, {deeper}"
    return None

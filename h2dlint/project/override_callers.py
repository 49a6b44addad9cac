"""Callers of an override through ``self`` in a base class: the template-method pattern.

A base class's per-step method calls a method on ``self`` that subclasses override::

    class TorchPreprocessingStep(nn.Module):          # pipeline_interfaces.py
        def forward(self, state, ...):
            ...
            return self._transform(state, ...)

    class RemoveEmptyFeaturesEncoderStep(TorchPreprocessingStep):   # another module
        def _transform(self, state, ...):
            x = select_features(x, mask)               # per row: int(sel_counts[b])

``self`` in the base's ``forward`` is the subclass's object, so the override runs on every
forward pass (tabpfn 6.4.1; upstream replaced the per-row reads in 7.1). The callers index
resolves ``self._transform(...)`` to the base's own ``_transform`` only; this module adds, for a
method ``pkg.mod.Sub.m``, the methods of each project base class ``Base`` of ``Sub`` (as
``Sub``'s module imports it, or a class of the same module) that call ``Base.m`` on ``self``
(the base's own methods other than ``m``). One level of bases: a base's base is not followed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from h2dlint.project.call_edges import call_edges
from h2dlint.project.call_resolution import defining_module
from h2dlint.project.caller_scans import Caller


class _Callers(Protocol):
    """What this module reads of ``callers.CallerIndex`` (which imports the project index,
    which calls this module: a protocol, not an import)."""

    @property
    def project(self) -> Any: ...
    def tree_part(self, module: str, name: str, compute: Callable[[Any], Any]) -> Any: ...
    def home_callers(self, qualified: str) -> list[Caller]: ...


def base_self_callers(index: _Callers, qualified: str) -> list[Caller]:
    """The methods of ``Sub``'s project bases that call ``m`` on ``self``, for a method
    ``qualified`` = ``pkg.mod.Sub.m`` (empty for a top-level function)."""
    project = index.project
    module = defining_module(qualified, project)
    rest = qualified[len(module) + 1 :]
    cls, _, name = rest.partition(".")
    if not name or "." in name:
        return []
    raw = index.tree_part(module, "edges", call_edges)
    if raw is None:
        return []
    imports = {local: project.absolute(module, full) for local, full in raw["imports"]}
    found: list[Caller] = []
    for written in raw.get("bases", {}).get(cls, ()):
        root, _, tail = written.partition(".")
        if root in imports:
            full = f"{imports[root]}.{tail}" if tail else imports[root]
        else:
            full = f"{module}.{written}"  # a class of the same module
        home = project.find_home(full)
        if home is None or "." in home[1]:
            continue
        base = home[1]
        found.extend(
            caller
            for caller in index.home_callers(f"{home[0]}.{base}.{name}")
            if caller.cls == base and caller.name != name
        )
    return found

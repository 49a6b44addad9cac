"""What a module's call edges name: the module that defines a qualified function, and a
module's unresolved call edges (``summary.call_edges``) resolved through its imports to the
qualified callees they reach (:class:`~h2dlint.project.callers.CallerIndex`'s edges)."""

from __future__ import annotations

from typing import Any, Protocol

from h2dlint.project.caller_scans import Caller
from h2dlint.project.layout import ProjectLayout
from h2dlint.project.reexports import defined_at


class ProjectIndex(Protocol):
    """What is asked of the project index (:class:`h2dlint.project.index.ProjectIndex`, which
    builds the caller index that uses this module: named by what it does, not imported)."""

    @property
    def layout(self) -> ProjectLayout: ...

    def absolute(self, importer: str | None, qualified: str) -> str: ...

    def find_home(self, qualified: str) -> tuple[str, str] | None: ...


def defining_module(qualified: str, project: ProjectIndex) -> str:
    """The module that defines the function or method ``qualified``."""
    module = qualified.rpartition(".")[0]
    owner = module.rpartition(".")[0]
    layout = project.layout.modules
    return owner if module not in layout and owner in layout else module


def resolve_edges(
    raw: Any, module: str, project: ProjectIndex, homes: dict[str, str | None]
) -> dict[str, list[Caller]]:
    """Qualified callee -> the functions of ``module`` that call it (each once, at its first
    call), from the module's unresolved call edges (``summary.call_edges``)."""
    imports: dict[str, str] = {}
    for local, full in raw["imports"]:
        imports[local] = project.absolute(module, full)
    edges: dict[str, list[Caller]] = {}
    bases = {cls: tuple(names) for cls, names in raw.get("bases", {}).items()}
    for name, cls, calls in raw["functions"]:
        owner = f"{module}.{cls}.{name}" if cls else f"{module}.{name}"
        seen: set[str] = set()
        for dotted, line in calls:
            if dotted.startswith("."):  # a method of one of the module's own classes
                callee = module + dotted
            else:
                root, _, rest = dotted.partition(".")
                full = imports[root]
                callee = f"{full}.{rest}" if rest else full
            if callee in seen:
                continue
            seen.add(callee)
            caller = Caller(module, owner, name, cls, line, bases.get(cls, ()) if cls else ())
            edges.setdefault(callee, []).append(caller)
            # Imported from a package that re-exports it (``from pkg.utils import softmax``,
            # defined in ``pkg.utils._softmax``): the edge also names the definition.
            home = defined_at(callee, project.find_home, project.layout.path_of, homes)
            if home is not None and home not in seen:
                seen.add(home)
                edges.setdefault(home, []).append(caller)
    return edges

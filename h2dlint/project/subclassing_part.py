"""The part of a module's summary that says which of its classes subclass another module's class.

A method's caller scan (``callers.py``) asks each module that names the method's class whether
one of its classes inherits the method (``importing_subclasses``); most do not (every
transformers model file names ``GenerationMixin``). That needs only the module's imports and its
classes' bases and methods: where the module's call edges are known already they answer it,
else the small ``subclassing`` part does, with the same values and no call resolved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from h2dlint.project.call_edges import subclassing


class _Callers(Protocol):
    """What is asked of ``callers.CallerIndex`` and its ``project.ProjectIndex`` (neither
    imported: both import this module, one through the other)."""

    project: Any

    def tree_part(self, module: str, name: str, compute: Callable[[Any], Any]) -> Any: ...


def subclassing_part(callers: _Callers, module: str) -> Any:
    """The imports, class bases and method names of ``module`` (a :func:`call_edges` part or
    a :func:`subclassing` part); None where the module cannot be read or parsed."""
    project = callers.project
    digest = project.known_digest(project.layout.modules[module])
    if digest is not None:
        edges = project.summaries.stored(digest, "edges")
        if edges is not None:
            return edges[0]
    return callers.tree_part(module, "subclassing", subclassing)

"""Module-level type aliases: ``NDArray = npt.NDArray[Any]``, ``BlockTable = np.ndarray``,
``EnvAction: TypeAlias = np.ndarray``.

An annotation that names such an alias (``def predict(...) -> NDArray``, ``x: Float32NDArray``)
says what the alias's value says. The alias is read in the module that annotates or, for an
imported name (``from .types import NDArray``), in the project module that binds it (the project
index follows re-exports). Only a name bound once at the top of its module counts, to a name,
an attribute or a subscript of one (``npt.NDArray[np.float32]``): its head, qualified where the
alias is bound, is what the alias stands for. One level: an alias of an alias is not followed.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.top_bindings import imported_top_answer, top_assignment
from h2dlint.context import SharedKey
from h2dlint.imports import ImportTable

# This module's own aliases, by name: the qualified name each stands for ("" for none).
_LOCAL: SharedKey[dict[str, str]] = SharedKey("type aliases")


def alias_target(provenance: FactSource, head: cst.BaseExpression) -> str | None:
    """The qualified name the type alias ``head`` stands for (``numpy.typing.NDArray`` for
    ``NDArray`` of ``NDArray = npt.NDArray[Any]``); None when ``head`` is no such alias."""
    if not isinstance(head, cst.Name):
        return None
    qualified = provenance.qualify(head)
    if qualified is None:
        local = provenance.context.shared(_LOCAL, dict)
        if head.value not in local:
            value = top_assignment(provenance.context.module, head.value)
            local[head.value] = (_head(value, provenance.qualify) or "") if value else ""
        return local[head.value] or None
    if qualified.startswith(("torch.", "numpy.", "typing.")):
        return None
    return imported_top_answer(
        provenance,
        qualified,
        "type-alias",
        lambda value, tree: _head(value, ImportTable.from_module(tree).qualify) or "",
    )


def _head(
    value: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], str | None]
) -> str | None:
    """The qualified head of an alias's value: ``npt.NDArray`` of ``npt.NDArray[Any]``."""
    head = value.value if isinstance(value, cst.Subscript) else value
    if not isinstance(head, (cst.Name, cst.Attribute)):
        return None
    return qualify(head)

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
    project = provenance.project
    if project is None or qualified.startswith(("torch.", "numpy.", "typing.")):
        return None
    found = project.find(project.absolute(provenance.module_name, qualified))
    if found is None or "." in found[1]:
        return None
    parsed = project.parsed(found[0])
    if parsed is None:
        return None
    key = f"type-alias:{found[1]}"
    if key not in parsed.attached:
        value = top_assignment(parsed.tree, found[1])
        qualify = ImportTable.from_module(parsed.tree).qualify
        parsed.attached[key] = (_head(value, qualify) or "") if value is not None else ""
    answer = parsed.attached[key]
    return answer if isinstance(answer, str) and answer else None


def _head(
    value: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], str | None]
) -> str | None:
    """The qualified head of an alias's value: ``npt.NDArray`` of ``npt.NDArray[Any]``."""
    head = value.value if isinstance(value, cst.Subscript) else value
    if not isinstance(head, (cst.Name, cst.Attribute)):
        return None
    return qualify(head)


def top_assignment(tree: cst.Module, name: str) -> cst.BaseExpression | None:
    """The value of ``name = value`` (or ``name: T = value``) at the top of ``tree`` when that
    is its only binding there."""
    found: list[cst.BaseExpression] = []
    for statement in tree.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            if statement.name.value == name:
                return None
            continue
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign):
                targets = [t.target for t in small.targets]
                if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                    if len(targets) != 1:
                        return None
                    found.append(small.value)
            elif (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.target.value == name
                and small.value is not None
            ):
                found.append(small.value)
    return found[0] if len(found) == 1 else None

"""Names a module binds once at its top (``NDArray = npt.NDArray[Any]``, ``EPS =
torch.tensor(1e-8)``), read where they are bound: in the asking module, or in the project
module another module imports the name from (the project index follows re-exports)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.fact_source import FactSource


def imported_top_answer(
    provenance: FactSource,
    qualified: str,
    kind: str,
    answer: Callable[[cst.BaseExpression, cst.Module], str],
) -> str | None:
    """For ``qualified`` (a name as the asking module imports it) bound once at the top of
    another module of the project: ``answer`` of its value and that module's tree, computed
    once per module, name and ``kind`` of question; None when the name is no such binding
    (outside the project, a class's attribute, bound twice) or the answer is empty."""
    project = provenance.project
    if project is None:
        return None
    found = project.find(project.absolute(provenance.module_name, qualified))
    if found is None or "." in found[1]:
        return None
    parsed = project.parsed(found[0])
    if parsed is None:
        return None
    key = f"{kind}:{found[1]}"
    if key not in parsed.attached:
        value = top_assignment(parsed.tree, found[1])
        parsed.attached[key] = answer(value, parsed.tree) if value is not None else ""
    result = parsed.attached[key]
    return result if isinstance(result, str) and result else None


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

"""``torch`` functions a project re-exports under its own name: ``kornia.core.arange`` is
``torch.arange`` (``kornia/core/_backend.py`` binds ``arange = torch.arange`` and
``kornia/core/__init__.py`` imports it), and a compatibility module's ``from torch import
zeros`` makes ``pkg.compat.zeros`` torch's. Code that imports the project's name calls torch's
factory all the same (session 24: kornia's LightGlue built ``arange(n).to(device)`` on the host
every forward through ``from kornia.core import arange``). Followed through the project's
modules, a few hops, each module parsed once by the project index."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.provenance import Provenance
from h2dlint.imports import ImportTable, dotted_name

# Re-exports followed before giving up (``pkg.f`` -> ``pkg.core.f`` -> ``pkg.core._backend.f``).
MAX_HOPS = 4
# Answers per (project index, qualified name): the index lives for the whole run.
_MEMO: dict[tuple[int, str], str | None] = {}


def torch_name(
    provenance: Provenance,
    func: cst.BaseExpression,
    wanted: Callable[[str], bool] = lambda name: True,
) -> str | None:
    """The qualified name of ``func`` as ``provenance.qualify`` gives it, or, when that is a
    project name bound to a ``torch`` function, the ``torch`` name (``torch.arange``). Only
    names whose last part ``wanted`` accepts are followed (each may parse a module: a caller
    asks only about the names it could use, ``Tensor`` or a factory's)."""
    qualified = provenance.qualify(func)
    if qualified is None or qualified.startswith("torch."):
        return qualified
    project = provenance.project
    if project is None or not wanted(qualified.rpartition(".")[2]):
        return qualified
    # ``from ..types import Tensor`` qualifies as ``..types.Tensor``: made absolute, the
    # project's module is found (torchsde's ``ts: Tensor`` of ``Tensor = torch.Tensor``), and
    # two modules' relative names never share an answer.
    absolute = project.absolute(provenance.module_name, qualified)
    key = (id(project), absolute)
    if key not in _MEMO:
        _MEMO[key] = _follow(project, absolute)
    return _MEMO[key] or qualified


def _follow(project: object, qualified: str) -> str | None:
    from h2dlint.project.index import ProjectIndex

    assert isinstance(project, ProjectIndex)
    for _ in range(MAX_HOPS):
        split = project.layout.split(qualified)
        if split is None:
            return None
        module_name, rest = split
        if "." in rest:
            return None
        module = project.parsed(module_name)
        if module is None:
            return None
        table = module.attached.get("torch-alias-imports")
        if not isinstance(table, ImportTable):
            table = ImportTable.from_module(module.tree)
            module.attached["torch-alias-imports"] = table
        imported = table.names.get(rest)
        if imported is None:
            return _assigned(module.tree, table, rest)
        if imported.startswith("torch."):
            return imported
        qualified = project.absolute(module_name, imported)
    return None


def _assigned(tree: cst.Module, table: ImportTable, name: str) -> str | None:
    """``name = torch.arange`` at the top of the module, bound once: the torch name."""
    found: list[str | None] = []
    for statement in tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Assign):
                continue
            for target in small.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    value = table.qualify(small.value) if dotted_name(small.value) else None
                    found.append(value)
    if len(found) != 1 or found[0] is None or not found[0].startswith("torch."):
        return None
    return found[0]

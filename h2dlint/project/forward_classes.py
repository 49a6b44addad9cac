"""The class a forward reference names when its module neither defines nor imports it.

An annotation may name a class of another module of the package by a string alone, to avoid an
import cycle (megatron-core 0.18's ``KVBlockAllocator.__init__(self, context:
"DynamicInferenceContext", ...)`` in ``contexts/kv_block_allocator.py``, whose text never
imports ``DynamicInferenceContext``; ``contexts/dynamic_context.py`` defines it and constructs
the allocator). Python never evaluates such a string, and the annotating module gives no path
to the class: the class is the one its package, or the nearest package above that defines a
class of that name, holds. This module finds it: the modules of the annotating module's own
package first, then those of each package above it up to the top-level package (not their
subpackages), and the first level at which some module's text defines ``class Name`` decides.
Exactly one module of that level must define it (two same-named classes leave it unknown), and
a level of more than :data:`MAX_MODULES` modules is not read (the answer is unknown).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from h2dlint.project.remembered import remembered

if TYPE_CHECKING:
    from h2dlint.project.index import ProjectIndex

# Modules of one package read at most per question.
MAX_MODULES = 200

# Per project index: the modules of each package (``pkg.sub`` -> ``pkg.sub``, ``pkg.sub.a``...).
_PACKAGES: weakref.WeakKeyDictionary[ProjectIndex, dict[str, list[str]]] = (
    weakref.WeakKeyDictionary()
)
# Per project index: (package, class name) -> the defining module, and the modules consulted.
_MEMO: weakref.WeakKeyDictionary[
    ProjectIndex, dict[tuple[str, str], tuple[str | None, dict[str, str]]]
] = weakref.WeakKeyDictionary()


def _packages(project: ProjectIndex) -> dict[str, list[str]]:
    found = _PACKAGES.get(project)
    if found is None:
        found = {}
        for module, path in project.layout.modules.items():
            # A package's ``__init__`` is read with the package's own modules.
            own = module if path.endswith("__init__.py") else module.rpartition(".")[0]
            found.setdefault(own, []).append(module)
        _PACKAGES[project] = found
    return found


def nearby_class_module(project: ProjectIndex, module: str, name: str) -> str | None:
    """The module that defines the class ``name`` a forward reference of ``module`` names
    (see the module docs); None when no level, or no level unambiguously, defines it."""
    path = project.layout.path_of(module)
    if path is None:
        return None
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    memo = _MEMO.setdefault(project, {})
    return remembered(memo, (package, name), project, lambda: _search(project, package, name))


def _search(project: ProjectIndex, package: str, name: str) -> str | None:
    packages = _packages(project)
    while package:
        modules = packages.get(package, [])
        if len(modules) > MAX_MODULES:
            return None
        # ``may_define``: the text has ``class Name`` (or ``def Name``, which the caller's
        # check of the definition refuses); an unreadable module counts, and so blocks.
        defining = [m for m in modules if project.may_define(m, name)]
        if defining:
            return defining[0] if len(defining) == 1 else None
        package = package.rpartition(".")[0]
    return None

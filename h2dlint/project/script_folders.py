"""The script folders of a repository, as callers of its package (session 46).

A training loop in ``scripts/train.py`` that calls ``pkg.step()`` per batch makes ``pkg.step``
hot: the user who checks the repository expects the package's index to see that caller. A
package's project index (``roots.layout_of``) therefore also holds the loose modules of the
folders beside it in its distribution that run it (:data:`SCRIPT_FOLDERS`, each without an
``__init__.py``: one with it is a package of the folder already) that import one of the
project's packages, named by their path in the
distribution (``scripts.train``, ``examples.llama.run``: as a namespace package from the
repository's folder). The folders are found on disk from the package's project, never from the
files a run is given: ``check pkg/`` and ``check .`` give the package's files the same callers,
and a run over the scripts alone checks them with their own index as before.

Only a distribution's folder (``pyproject.toml``, ``setup.py`` or ``setup.cfg``, see
``roots.distribution_of``) has such folders: an unpacked wheel (the corpus) has none. Tests are
left out: they run a package's functions on toy inputs, case after case, which is no workload's
step.
"""

from __future__ import annotations

import os
import re

from h2dlint.project.layout import ProjectLayout, _walk_package

# The folders beside a package whose scripts run it.
SCRIPT_FOLDERS = ("scripts", "examples", "benchmarks")
# Modules of those folders one index holds at most (in path order): a repository's examples
# can be many small projects.
MAX_SCRIPT_MODULES = 2000


def add_script_folders(layout: ProjectLayout, distribution: str, root: str) -> int:
    """Add the modules of ``distribution``'s script folders to ``layout`` (the layout of the
    project ``root`` in that distribution), names it holds already keeping their files; the
    number added."""
    added = 0
    imports = _importing(layout)
    for name in SCRIPT_FOLDERS:
        folder = os.path.join(distribution, name)
        if (
            os.path.realpath(folder) == os.path.realpath(root)
            or not os.path.isdir(folder)
            or os.path.isfile(os.path.join(folder, "__init__.py"))
        ):
            continue
        found = ProjectLayout()
        _walk_package(folder, found)
        for module, path in found.modules.items():
            if added >= MAX_SCRIPT_MODULES:
                return added
            if module not in layout.modules and imports is not None and _imports(path, imports):
                layout.add(module, path)
                added += 1
    return added


Importing = tuple[tuple[bytes, ...], re.Pattern[bytes]]


def _importing(layout: ProjectLayout) -> Importing | None:
    """An import of one of ``layout``'s top-level packages or modules (``import pkg``,
    ``from pkg.ops import step``); None when it has none."""
    tops = sorted({module.partition(".")[0] for module in layout.modules})
    if not tops:
        return None
    words = tuple(top.encode() for top in tops)
    names = b"|".join(map(re.escape, words))
    return words, re.compile(rb"^[ \t]*(?:from|import)[ \t]+(?:" + names + rb")\b", re.MULTILINE)


def _imports(path: str, importing: Importing) -> bool:
    """Whether the script at ``path`` imports one of the project's packages: the others
    cannot call them, and every module an index holds costs its caller tables (a repository's
    ``examples/`` of other libraries' pipelines)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    words, pattern = importing
    # a substring test first: most scripts of a large folder never name the packages
    return any(word in data for word in words) and pattern.search(data) is not None

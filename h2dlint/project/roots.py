"""The projects of one run: each checked file's facts come from its own package.

A run may be given files of several projects (the labelled files of many packages, two
versions of one package, a pre-commit run): each folder that top-level packages are imported
from (:func:`root_of`) gets its own :class:`ProjectIndex` over every package and module there
(``layout.build_layout`` of the folder), whichever of its files the run checks. A file's
findings then never depend on which other files one call holds: two packages with the same
top-level name (``src``, ``utils``, ``transformers`` 4 and 5) never shadow each other's
modules, callers in one project never make a function of another hot (nor use up the files a
question about a name may read, ``callers.MAX_FILES_PER_NAME``), and a file checked alone sees
the packages beside its own (a namespace package's parts, ``evaluation/`` beside
``opt_classic/`` in one distribution) that a run over the whole folder sees. The index
serving a file is installed (``index.install``) before the file is checked (:func:`select`),
so that the analyses keep asking ``index.current()``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

from h2dlint.project.index import ProjectIndex, current, install
from h2dlint.project.layout import (
    SKIPPED_DIRECTORIES,
    ProjectLayout,
    add_packages,
    build_layout,
    package_root,
)
from h2dlint.project.script_folders import add_script_folders

# Files that mark the folder of a distribution's source (a repository, an unpacked sdist).
DISTRIBUTION_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
# How far above a project folder its distribution's marker is looked for.
MARKER_LEVELS = 4


def root_of(path: str) -> str:
    """The project of the file (or directory) at ``path``: the folder its top-level package is
    imported from (``src/`` of ``src/pkg/mod.py``; ``agilerl/`` of the namespace package's
    ``agilerl/algorithms/x.py``), or the folder of a loose module. Its layout holds every
    package and module there (``build_layout`` of the folder), whichever of them the run
    checks: the folder cannot hold two top-level modules of one name."""
    real = os.path.realpath(path)
    directory = real if os.path.isdir(real) else os.path.dirname(real)
    root = package_root(directory)
    if not os.path.isfile(os.path.join(root, "__init__.py")):
        # a folder of loose modules, unless a package's walk reaches it (folders named as
        # identifiers, ``__init__.py`` or not: ``core/inference/contexts/attention_context/
        # triton/`` of megatron), which names its modules
        above = _enclosing_package(directory)
        if above is None:
            return directory
        root = package_root(above)
    return os.path.dirname(root)


def layout_of(root: str) -> ProjectLayout:
    """The modules a file of the project ``root`` imports: the packages and modules in
    ``root`` (``build_layout``), then, for a folder of scripts only (no package in it), the
    packages of the distribution around it (:func:`distribution_folders`):
    ``scripts/serve.py`` or ``tests/test_x.py`` of a repository imports the repository's
    ``pkg`` (or ``src/pkg``) as an installed package, and sees its
    facts whichever of the repository's files one call checks. Its own folder's modules come
    first, as on ``sys.path``."""
    layout = build_layout([root])
    paths = layout.modules.values()
    if all(os.sep not in _under(root, path) for path in paths):
        # a folder of scripts only: a folder that packages are imported from (``src/``,
        # ``tests/projects/``) is a project of its own
        for folder in distribution_folders(root):
            add_packages(layout, folder)
    else:
        # a package's project: the scripts of its distribution call it (script_folders.py),
        # where the packages are the distribution's own (its folder or ``src/``), not test
        # data deeper in a repository
        distribution = distribution_of(root)
        if distribution in (root, os.path.dirname(root)):
            add_script_folders(layout, distribution, root)
    return layout


def _under(root: str, path: str) -> str:
    return os.path.relpath(path, os.path.realpath(root))


def distribution_folders(root: str) -> list[str]:
    """The folders other than ``root`` that the distribution holding ``root`` imports its
    packages from: the nearest folder at or above ``root`` (up to ``MARKER_LEVELS``) with a
    ``pyproject.toml``, ``setup.py`` or ``setup.cfg``, and its ``src/``; none when no such
    folder is found (an unpacked wheel)."""
    current = distribution_of(root)
    if current is None:
        return []
    folders = [current, os.path.join(current, "src")]
    return [f for f in folders if f != root and os.path.isdir(f)]


def distribution_of(root: str) -> str | None:
    """The nearest folder at or above ``root`` (up to ``MARKER_LEVELS``) with a
    ``pyproject.toml``, ``setup.py`` or ``setup.cfg``: the distribution's folder; None when
    there is none (an unpacked wheel)."""
    current = root
    for _ in range(MARKER_LEVELS + 1):
        if any(os.path.isfile(os.path.join(current, m)) for m in DISTRIBUTION_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return None


def _enclosing_package(directory: str) -> str | None:
    """The nearest package above ``directory`` through folders named as identifiers (those
    that ``layout._walk_package`` descends into); None when there is none."""
    current = directory
    while os.path.basename(current).isidentifier():
        if os.path.basename(current) in SKIPPED_DIRECTORIES:
            return None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        if os.path.isfile(os.path.join(parent, "__init__.py")):
            return parent
        current = parent
    return None


class ProjectIndexes:
    """One project index per project of the run's files, by :func:`root_of`."""

    def __init__(self, paths: Iterable[str], make: Callable[[ProjectLayout], ProjectIndex]) -> None:
        self._roots: dict[str, str] = {}  # path -> its project
        for path in paths:
            self._roots[path] = root_of(path)
        roots = sorted(set(self._roots.values()))
        self.indexes = {root: make(layout_of(root)) for root in roots}
        if not self.indexes:  # standard input alone: an index of nothing, as before
            self.indexes[""] = make(build_layout(()))
        self._selected: ProjectIndex | None = None

    def __iter__(self) -> Iterator[ProjectIndex]:
        return iter(self.indexes.values())

    def of(self, path: str) -> ProjectIndex | None:
        """The index serving the file at ``path``; for one not among the run's files (``-``,
        standard input), the run's only index, or None when it has several."""
        root = self._roots.get(path)
        if root is None and path != "-":
            root = self._roots[path] = root_of(path)
        found = self.indexes.get(root) if root is not None else None
        if found is None and len(self.indexes) == 1:
            return next(iter(self.indexes.values()))
        return found

    def select(self, path: str) -> ProjectIndex | None:
        """Install the index serving ``path``. The one it replaces lets its parsed trees go
        (each index keeps up to ``KEPT_CHARS`` of them: with many projects the run's memory
        would grow with their number); its tables of names and callers stay."""
        return self.use(self.of(path))

    def use(self, index: ProjectIndex | None) -> ProjectIndex | None:
        """Install ``index`` (see :meth:`select`)."""
        if self._selected is not None and self._selected is not index:
            self._selected.drop_trees()
        self._selected = index
        install(index)
        return index

    def jobs_of(self, paths: list[str]) -> list[tuple[ProjectIndex, list[int]]]:
        """Per index, the positions in ``paths`` of the files it serves."""
        found: dict[int, tuple[ProjectIndex, list[int]]] = {}
        for position, path in enumerate(paths):
            index = self.of(path)
            if index is not None:
                found.setdefault(id(index), (index, []))[1].append(position)
        return list(found.values())


_INDEXES: ProjectIndexes | None = None


def install_all(indexes: ProjectIndexes | None) -> None:
    """Install the run's indexes (None: none); the first file checked selects its own."""
    global _INDEXES
    _INDEXES = indexes
    if indexes is None:
        install(None)


def select(path: str) -> ProjectIndex | None:
    """Install and return the index serving the file at ``path``: the run's own for that
    file's project, or, where no run installed several (a test, a caller that installed one),
    the one installed."""
    if _INDEXES is None:
        return current()
    return _INDEXES.select(path)

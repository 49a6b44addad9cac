"""Which module lives in which file: the packages the checked files belong to.

For every path given, the whole top-level package around it counts (walk up while a directory
holds ``__init__.py``; an unpacked wheel has no ``pyproject.toml``), so that checking
``src/pkg/sub/file.py`` alone still sees ``src/pkg``. Built with directory listings only: no file
is read or parsed here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

SKIPPED_DIRECTORIES = frozenset({"__pycache__", ".git", ".hg", ".venv", "venv", "node_modules"})
# A package larger than this many modules is indexed no further (a vendored monorepo): the
# analysis then sees fewer facts, never wrong ones.
MAX_MODULES = 20_000


@dataclass
class ProjectLayout:
    """Dotted module name -> file path, for the packages around the checked files."""

    modules: dict[str, str] = field(default_factory=dict)
    by_path: dict[str, str] = field(default_factory=dict)

    def add(self, module: str, path: str) -> None:
        if module not in self.modules:
            self.modules[module] = path
            self.by_path[path] = module

    def path_of(self, module: str) -> str | None:
        return self.modules.get(module)

    def module_of(self, path: str) -> str | None:
        return self.by_path.get(os.path.realpath(path))

    def split(self, qualified: str) -> tuple[str, str] | None:
        """``pkg.mod.Class.attr`` -> (``pkg.mod``, ``Class.attr``): the longest module prefix
        that the layout knows, and the rest; None when no prefix is a module here."""
        parts = qualified.split(".")
        for end in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:end])
            if module in self.modules:
                return module, ".".join(parts[end:])
        return None

    def without_namespace(self, qualified: str) -> str:
        """``megatron.core.x`` -> ``core.x`` where the layout's package ``core`` lives in a
        directory ``megatron/`` without ``__init__.py`` (a namespace package the layout does
        not name: the walk up stops at the last ``__init__.py``); else ``qualified``."""
        head, _, rest = qualified.partition(".")
        if not rest or head in self.modules:
            return qualified
        path = self.modules.get(rest.partition(".")[0])
        if path is None or os.path.basename(path) != "__init__.py":
            return qualified
        namespace = os.path.dirname(os.path.dirname(path))
        return rest if os.path.basename(namespace) == head else qualified

    def resolve_relative(self, importer: str, relative: str) -> str:
        """``.buffers.CpuGpuBuffer`` imported in ``pkg.sub.runner`` -> ``pkg.sub.buffers...``."""
        level = len(relative) - len(relative.lstrip("."))
        rest = relative[level:]
        path = self.modules.get(importer, "")
        is_package = os.path.basename(path) == "__init__.py"
        parts = importer.split(".")
        # A module's package is its parent; a package's own __init__ is its package.
        base = parts if is_package else parts[:-1]
        if level > 1:
            base = base[: len(base) - (level - 1)]
        return ".".join([*base, rest] if rest else base)


def package_root(directory: str) -> str:
    """The top-level package directory around ``directory`` (itself when it is no package).
    A directory without ``__init__.py`` inside a package is a namespace subpackage
    (``torchtitan/components/``): the walk goes on through it."""
    root = directory
    current = directory
    while True:
        parent = os.path.dirname(current)
        if os.path.isfile(os.path.join(current, "__init__.py")):
            root = current
        elif not _namespace_subpackage(current):
            break
        if parent == current:
            break
        current = parent
    return root


def _namespace_subpackage(directory: str) -> bool:
    """Whether ``directory`` has no ``__init__.py`` but is importable as a subpackage of the
    package around it (Python 3 namespace packages: ``import pkg.sub.mod`` works)."""
    name = os.path.basename(directory)
    return (
        name.isidentifier()
        and name not in SKIPPED_DIRECTORIES
        and os.path.isfile(os.path.join(os.path.dirname(directory), "__init__.py"))
    )


def build_layout(paths: Iterable[str]) -> ProjectLayout:
    """The layout of every package holding one of ``paths`` (files or directories)."""
    layout = ProjectLayout()
    roots: set[str] = set()
    plain: set[str] = set()  # directories that are no package, around loose modules
    seen: set[str] = set()
    for given in paths:
        real = os.path.realpath(given)
        directory = real if os.path.isdir(real) else os.path.dirname(real)
        if directory in seen:
            continue
        seen.add(directory)
        root = package_root(directory)
        if os.path.isfile(os.path.join(root, "__init__.py")):
            roots.add(root)
        else:
            plain.add(directory)
    for directory in sorted(plain):
        # A script's directory: its sibling modules and packages, as ``import x`` finds them.
        roots.update(_packages_in(directory))
        for path in _modules_in(directory):
            layout.add(os.path.splitext(os.path.basename(path))[0], path)
    for root in sorted(roots):
        _walk_package(root, layout)
    return layout


def add_packages(layout: ProjectLayout, directory: str) -> None:
    """Add the packages in ``directory`` to ``layout`` (modules it already names keep their
    files: a script's own folder comes first on ``sys.path``)."""
    for root in sorted(_packages_in(directory)):
        _walk_package(root, layout)


def _packages_in(directory: str) -> list[str]:
    try:
        entries = os.scandir(directory)
    except OSError:
        return []
    with entries:
        return [
            e.path
            for e in entries
            if e.is_dir()
            and e.name not in SKIPPED_DIRECTORIES
            and os.path.isfile(os.path.join(e.path, "__init__.py"))
        ]


def _modules_in(directory: str) -> list[str]:
    try:
        entries = os.scandir(directory)
    except OSError:
        return []
    with entries:
        return [e.path for e in entries if e.is_file() and e.name.endswith(".py")]


def _walk_package(root: str, layout: ProjectLayout) -> None:
    base = os.path.dirname(root)
    prefix = base if base.endswith(os.sep) else base + os.sep
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIPPED_DIRECTORIES
            and not d.startswith(".")
            # a namespace subpackage of this one, or a package (asked second: a name that is
            # an identifier needs no status call of its ``__init__.py``)
            and (d.isidentifier() or os.path.isfile(os.path.join(directory, d, "__init__.py")))
        )
        # ``os.walk`` joins entry names to ``root``: the path under ``base`` is a slice of it
        # (``os.path.relpath`` normalised both paths again for every directory).
        under = (
            directory[len(prefix) :]
            if directory.startswith(prefix)
            else os.path.relpath(directory, base)
        )
        relative = under.replace(os.sep, ".")
        for name in sorted(files):
            if not name.endswith(".py") or len(layout.modules) >= MAX_MODULES:
                continue
            stem = name[:-3]
            if not stem.isidentifier():
                continue
            module = relative if stem == "__init__" else f"{relative}.{stem}"
            layout.add(module, os.path.join(directory, name))

"""Which exclude patterns apply under one configuration, and where each was set.

``exclude`` (the defaults unless the configuration sets it, or ``--exclude`` replaces it) then
``extend-exclude`` from the configuration and ``--extend-exclude``. Each pattern keeps a note of
its origin, so that ``--show-settings`` and a run that skipped a path can say which setting did.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from h2dlint.globs import Glob

if TYPE_CHECKING:
    from h2dlint.overrides import Overrides

DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".h2dlint_cache",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pytype",
    ".ruff_cache",
    ".pytest_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)


def exclude_patterns(
    config_path: Path | None,
    root: Path,
    exclude: Sequence[str] | None,
    extend_exclude: Sequence[str],
    overrides: Overrides,
) -> list[tuple[str, str]]:
    """(pattern, origin) of every exclude pattern for the configuration at ``config_path``
    (rooted at ``root``) that says ``exclude`` and ``extend-exclude``."""
    where = _describe(config_path, overrides.cwd)
    if overrides.exclude is not None:
        base = [(p, "--exclude") for p in _cli_patterns(overrides.exclude, overrides.cwd, root)]
    elif exclude is not None:
        base = [(p, f"`exclude` in {where}") for p in exclude]
    else:
        base = [(p, "the default `exclude`") for p in DEFAULT_EXCLUDE]
    cli_extend = _cli_patterns(overrides.extend_exclude, overrides.cwd, root)
    return [
        *base,
        *((p, f"`extend-exclude` in {where}") for p in extend_exclude),
        *((p, "--extend-exclude") for p in cli_extend),
    ]


def _describe(path: Path | None, cwd: Path | None) -> str:
    """A configuration file as messages name it: relative to ``cwd`` when below it."""
    if path is None:
        return "<command line>"
    shown = str(path)
    if cwd is not None:
        relative = os.path.relpath(path, os.path.realpath(cwd))
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            shown = relative
    return f"{shown} [tool.h2dlint]" if path.name == "pyproject.toml" else shown


def _cli_patterns(patterns: Sequence[str], cwd: Path | None, root: Path) -> list[str]:
    """Command-line exclude patterns for the configuration rooted at ``root``. A pattern
    without ``/`` names a file or folder anywhere and stays as it is; one with ``/`` is a path
    from ``cwd`` (as in Ruff), re-anchored at ``root``, and dropped where it lies outside it."""
    if cwd is None:
        return list(patterns)
    out = []
    for pattern in patterns:
        glob = Glob.compile(pattern)
        if glob.component:
            out.append(pattern)
            continue
        absolute = os.path.normpath(os.path.join(os.path.realpath(cwd), pattern.strip()))
        below = os.path.relpath(absolute, root)
        if below == os.curdir:
            out.append("/**")
        elif below != os.pardir and not below.startswith(os.pardir + os.sep):
            out.append("/" + below.replace(os.sep, "/"))
    return out

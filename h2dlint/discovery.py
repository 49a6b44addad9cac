"""Which files a run checks.

Directories are walked for ``*.py`` and ``*.pyi`` files, skipping what the settings exclude (the
default list: ``.git``, virtual environments, ``build``, caches, ...) and what ``.gitignore`` files
ignore. Symlinked directories are not followed, so a symlink loop cannot trap the walk. A file
named on the command line is always checked, unless ``--force-exclude`` is given and the settings
exclude it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from h2dlint.config import CONFIG_FILES, Settings, SettingsResolver
from h2dlint.gitignore import GitIgnore, IgnoreStack, load_repo_ignores

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class Candidate:
    path: str  # absolute
    display: str
    settings: Settings
    # Why the file cannot be checked (a dangling symlink, a missing path), if it cannot.
    error: str | None = None
    # The file's real path, when the walk already knows it (saves a realpath per file).
    real: str | None = None


def _below(absolute: str, base: Path) -> str | None:
    """``absolute`` relative to ``base`` in POSIX form, or None when it is not below it. String
    work only: this runs for every entry of the walk, where pathlib's parsing dominated."""
    prefix = str(base)
    if absolute == prefix:
        return "."
    if not prefix.endswith(os.sep):
        prefix += os.sep
    if not absolute.startswith(prefix):
        return None
    rest = absolute[len(prefix) :]
    return rest if os.sep == "/" else rest.replace(os.sep, "/")


def display_path(path: Path | str, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it lies below it, else as absolute."""
    absolute = os.path.abspath(path)
    below = _below(absolute, cwd)
    return below if below is not None else absolute


def relative_to_root(path: Path | str, settings: Settings) -> str:
    absolute = os.path.abspath(path)
    below = _below(absolute, settings.root)
    return below if below is not None else os.path.basename(absolute)


class Discovery:
    def __init__(
        self,
        resolver: SettingsResolver,
        cwd: Path,
        *,
        force_exclude: bool = False,
        respect_gitignore: bool = True,
    ) -> None:
        self.resolver = resolver
        self.cwd = Path(os.path.abspath(cwd))
        self.force_exclude = force_exclude
        self.respect_gitignore = respect_gitignore
        self.warnings: list[str] = []

    def candidates(self, paths: Sequence[Path]) -> list[Candidate]:
        seen: set[str] = set()
        out: list[Candidate] = []
        for candidate in self._all(paths):
            if candidate.error is not None:
                key = candidate.display
            else:
                key = candidate.real or os.path.realpath(candidate.path)
            if key in seen:
                continue
            seen.add(key)
            out.append(candidate)
        return out

    def _all(self, paths: Sequence[Path]) -> Iterator[Candidate]:
        for given in paths:
            path = Path(os.path.abspath(given))
            if path.is_dir():
                yield from self._walk(path)
                continue
            settings = self.resolver.for_directory(path.parent)
            display = display_path(path, self.cwd)
            if not path.exists():
                reason = "dangling symlink" if path.is_symlink() else "no such file or directory"
                yield Candidate(str(path), display, settings, error=reason)
                continue
            if self.force_exclude and self._excluded(path, settings):
                continue
            yield Candidate(str(path), display, settings)

    def _excluded(self, path: Path, settings: Settings) -> bool:
        return settings.is_excluded(relative_to_root(path, settings))

    def _walk(self, top: Path) -> Iterator[Candidate]:
        """Every file below ``top`` that is not excluded or ignored. Paths are strings here:
        this runs for every entry of the tree, where pathlib's parsing would dominate."""
        settings = self.resolver.for_directory(top)
        if self.force_exclude and self._excluded(top, settings):
            return
        repo_root, ignores = (None, [])
        if self.respect_gitignore:
            repo_root, ignores = load_repo_ignores(top)
        start = str(top)
        # Paths for .gitignore patterns are relative to the repository's root, a real path:
        # measured from each directory's real path, so that a walk through a symlink to the
        # repository matches them too. Outside a repository, from ``top`` as given.
        base_dir = str(repo_root) if repo_root is not None else start
        cwd = str(self.cwd)
        # (directory, its real path, the ignores that apply). Symlinked directories are not
        # followed, so below ``top`` a directory's real path is its parent's plus its name.
        stack = [(start, os.path.realpath(start), IgnoreStack(list(ignores)))]
        while stack:
            directory, real_dir, ignore_stack = stack.pop()
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError as exc:
                self.warnings.append(f"{display_path(directory, self.cwd)}: {exc.strerror}")
                continue
            below = _below(real_dir if repo_root is not None else directory, base_dir)
            rel_dir = "" if below is None or below == "." else below
            # The repository's ignores were loaded down to ``top``; below it, or outside any
            # repository, each directory's own .gitignore joins as the walk reaches it.
            if self.respect_gitignore and (directory != start or repo_root is None):
                local = next((e for e in entries if e.name == ".gitignore"), None)
                if local is not None and local.is_file():
                    ignore = GitIgnore.from_file(Path(local.path), rel_dir)
                    ignore_stack = IgnoreStack([*ignore_stack.ignores, ignore])
            may_hold_config = any(entry.name in CONFIG_FILES for entry in entries)
            settings = self.resolver.for_real_directory(real_dir, may_hold_config)
            root = str(settings.root)
            subdirs: list[tuple[str, str]] = []
            for entry in entries:
                name = entry.name
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                # entry.path is absolute and normal: the walk starts from an absolute path.
                from_root = _below(entry.path, root)
                if settings.is_excluded_entry(from_root if from_root is not None else name, name):
                    continue
                rel = f"{rel_dir}/{name}" if rel_dir else name
                if self.respect_gitignore and ignore_stack.is_ignored(rel, is_dir):
                    continue
                if is_dir:
                    subdirs.append((entry.path, os.path.join(real_dir, name)))
                    continue
                if not name.endswith(PYTHON_SUFFIXES):
                    continue
                shown = _below(entry.path, cwd)
                display = shown if shown is not None else entry.path
                if is_link and not os.path.exists(entry.path):
                    yield Candidate(entry.path, display, settings, error="dangling symlink")
                    continue
                if is_link and os.path.isdir(entry.path):
                    continue  # a symlink to a directory named *.py: never followed
                real = None if is_link else os.path.join(real_dir, name)
                yield Candidate(entry.path, display, settings, real=real)
            stack.extend((sub, real, ignore_stack) for sub, real in reversed(subdirs))

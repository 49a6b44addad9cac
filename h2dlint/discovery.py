"""Which files a run checks.

Directories are walked for ``*.py`` and ``*.pyi`` files, skipping what the settings exclude (the
default list: ``.git``, virtual environments, ``build``, caches, ...) and what ``.gitignore`` files
ignore. Symlinked directories are not followed, so a symlink loop cannot trap the walk. A file
named on the command line is always checked, unless ``--force-exclude`` is given and the settings
exclude it (``.gitignore`` files never apply to a named file). A directory named on the command
line is always walked (again, unless ``--force-exclude`` and the settings exclude it); what is
below it honours both. These are Ruff's rules.

What a walk passes over (a folder or Python file that is excluded or ignored, a symlink to a
folder) is recorded with the reason, per path given, so that a run that finds nothing to check can
say why.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Skip:
    """A path the run passed over, and why."""

    display: str
    reason: str
    # "exclude", "gitignore" or "symlink": what would make the run take it.
    kind: str


@dataclass
class Walked:
    """What discovery made of one path given on the command line."""

    display: str
    is_dir: bool
    files: int = 0
    skipped: list[Skip] = field(default_factory=list)


def _below(absolute: str, base: str | Path) -> str | None:
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
        # One per path given, in order.
        self.walked: list[Walked] = []

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
            walked = Walked(display_path(path, self.cwd), path.is_dir())
            self.walked.append(walked)
            for candidate in self._one(path, walked):
                walked.files += 1
                yield candidate

    def _one(self, path: Path, walked: Walked) -> Iterator[Candidate]:
        if walked.is_dir:
            yield from self._walk(path, walked)
            return
        settings = self.resolver.for_directory(path.parent)
        display = walked.display
        if not path.exists():
            reason = "dangling symlink" if path.is_symlink() else "no such file or directory"
            yield Candidate(str(path), display, settings, error=reason)
            return
        if self.force_exclude and self._force_excluded(path, settings, walked):
            return
        yield Candidate(str(path), display, settings)

    def _force_excluded(self, path: Path, settings: Settings, walked: Walked) -> bool:
        """Whether --force-exclude passes over the named ``path``; records why if so."""
        exclusion = settings.exclusion(relative_to_root(path, settings))
        if exclusion is None:
            return False
        pattern, origin = exclusion
        reason = f"is excluded by `{pattern}` ({origin}; --force-exclude applies it to named paths)"
        walked.skipped.append(Skip(walked.display, reason, "exclude"))
        return True

    def _walk(self, top: Path, walked: Walked) -> Iterator[Candidate]:
        """Every file below ``top`` that is not excluded or ignored. Paths are strings here:
        this runs for every entry of the tree, where pathlib's parsing would dominate."""
        settings = self.resolver.for_directory(top)
        if self.force_exclude and self._force_excluded(top, settings, walked):
            return
        repo_root: Path | None = None
        ignores: list[GitIgnore] = []
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
        stack = [(start, os.path.realpath(start), IgnoreStack(tuple(ignores)))]
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
                    ignore_stack = IgnoreStack((*ignore_stack.ignores, ignore))
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
                from_root = from_root if from_root is not None else name
                if settings.is_excluded_entry(from_root, name):
                    if is_dir or name.endswith(PYTHON_SUFFIXES):
                        self._skip_excluded(walked, entry.path, settings, from_root, name)
                    continue
                rel = f"{rel_dir}/{name}" if rel_dir else name
                if self.respect_gitignore and ignore_stack.is_ignored(rel, is_dir):
                    if is_dir or name.endswith(PYTHON_SUFFIXES):
                        self._skip_ignored(walked, entry.path, ignore_stack, rel, is_dir)
                    continue
                if is_dir:
                    subdirs.append((entry.path, os.path.join(real_dir, name)))
                    continue
                if not name.endswith(PYTHON_SUFFIXES):
                    if is_link and os.path.isdir(entry.path):
                        reason = "is a symbolic link to a folder (never followed)"
                        walked.skipped.append(Skip(self._shown(entry.path), reason, "symlink"))
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

    def _shown(self, path: str) -> str:
        shown = _below(path, self.cwd)
        return shown if shown is not None else path

    def _skip_excluded(
        self, walked: Walked, path: str, settings: Settings, from_root: str, name: str
    ) -> None:
        exclusion = settings.exclusion(from_root, name)
        pattern, origin = exclusion if exclusion is not None else ("?", "?")
        reason = f"is excluded by `{pattern}` ({origin})"
        walked.skipped.append(Skip(self._shown(path), reason, "exclude"))

    def _skip_ignored(
        self, walked: Walked, path: str, ignores: IgnoreStack, rel: str, is_dir: bool
    ) -> None:
        why = ignores.why_ignored(rel, is_dir)
        if why is None:
            reason = "is ignored by a .gitignore file"
        else:
            source, line, pattern = why
            where = f"{self._shown(source)}:{line}" if source else "a .gitignore file"
            reason = f"is ignored by `{pattern}` in {where}"
        walked.skipped.append(Skip(self._shown(path), reason, "gitignore"))

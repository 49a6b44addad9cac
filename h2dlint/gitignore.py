"""A ``.gitignore`` matcher that follows git's rules (gitignore(5), dir.c and wildmatch.c).

* Blank lines and lines starting with ``#`` are skipped; a UTF-8 BOM and a ``\\r`` before the
  newline are dropped; trailing spaces are trimmed unless escaped with ``\\``.
* A leading ``!`` negates the pattern (``\\!`` and ``\\#`` stand for a literal first ``!``/``#``).
* A trailing ``/`` makes the pattern match directories only.
* A pattern with a ``/`` at its start or middle is matched against the path relative to the
  ``.gitignore``'s directory; one without is matched against the basename, at any depth.
* ``*`` and ``?`` never match ``/``, nor does a ``[...]`` class (``[!...]``/``[^...]`` negate;
  ``[:alpha:]`` and friends are supported). ``**`` is special only as a whole component:
  ``**/x``, ``x/**`` and ``x/**/y``; elsewhere it is a plain ``*``.
* Within one file the last matching pattern wins; a deeper file wins over a shallower one.

Paths are POSIX paths relative to one root (the repository root, or the root of a walk), and
each :class:`GitIgnore` knows its directory (``base``) relative to the same root. Characters are
compared as Unicode code points (git compares bytes; this only differs for ``?`` and ``[...]``
against non-ASCII names).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GitIgnore", "IgnoreStack", "load_repo_ignores"]

GITIGNORE = ".gitignore"

_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "\\x21-\\x7e",
    "lower": "a-z",
    "print": "\\x20-\\x7e",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
}


class _NeverMatches(Exception):
    """The pattern can never match (git's WM_ABORT_ALL): unclosed class, dangling ``\\``..."""


@dataclass(frozen=True)
class _Pattern:
    text: str
    regex: re.Pattern[str] | None  # None: never matches
    negated: bool
    dir_only: bool
    basename_only: bool
    line: int = 0  # 1-based, in its file (0: not known)

    def matches(self, rel: str, is_dir: bool) -> bool:
        """``rel``: the path relative to the .gitignore's directory."""
        if self.regex is None or (self.dir_only and not is_dir):
            return False
        name = rel.rpartition("/")[2] if self.basename_only else rel
        return self.regex.fullmatch(name) is not None


@dataclass(frozen=True)
class GitIgnore:
    """The patterns of one ``.gitignore`` (or ``info/exclude``) file in directory ``base``."""

    base: str
    patterns: tuple[_Pattern, ...]
    # The file the patterns were read from, to say why a path is ignored ("" if not a file).
    source: str = ""

    @classmethod
    def from_text(cls, text: str, base: str, source: str = "") -> GitIgnore:
        """Parse ``text``; ``base`` is the POSIX directory of the file ("" for the root)."""
        return cls(base.strip("/"), tuple(_parse(text)), source)

    @classmethod
    def from_file(cls, path: Path, base: str) -> GitIgnore:
        """Read and parse ``path``; an unreadable file gives a GitIgnore without patterns."""
        try:
            data = path.read_bytes()
        except OSError:
            data = b""
        return cls.from_text(data.decode("utf-8", errors="replace"), base, str(path))

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def match(self, rel_path: str, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included by a ``!`` pattern, None: no pattern matches.

        Paths outside ``base`` (and ``base`` itself) never match.
        """
        pattern = self.matching_pattern(rel_path, is_dir)
        return None if pattern is None else not pattern.negated

    def matching_pattern(self, rel_path: str, is_dir: bool) -> _Pattern | None:
        """The pattern that decides about ``rel_path`` (the last that matches), if any."""
        rel = _relative_to(rel_path, self.base)
        if rel is None:
            return None
        for pattern in reversed(self.patterns):
            if pattern.matches(rel, is_dir):
                return pattern
        return None


@dataclass(frozen=True)
class IgnoreStack:
    """The GitIgnores that apply to one directory of a walk, root-most first."""

    ignores: tuple[GitIgnore, ...] = ()

    @classmethod
    def of(cls, ignores: Iterable[GitIgnore]) -> IgnoreStack:
        return cls(tuple(ignore for ignore in ignores if ignore))

    def push(self, ignore: GitIgnore) -> IgnoreStack:
        """The stack for a subdirectory that has ``ignore`` (a no-op if it has no patterns)."""
        return IgnoreStack((*self.ignores, ignore)) if ignore else self

    def enter(self, directory: Path, rel_dir: str) -> IgnoreStack:
        """The stack for ``directory`` (at ``rel_dir``), adding its ``.gitignore`` if any."""
        ignore = _read_gitignore(directory, rel_dir)
        return self if ignore is None else self.push(ignore)

    def is_ignored(self, rel_path: str, is_dir: bool) -> bool:
        """Whether git ignores ``rel_path`` itself (its parents are the walker's business)."""
        for ignore in reversed(self.ignores):
            verdict = ignore.match(rel_path, is_dir)
            if verdict is not None:
                return verdict
        return False

    def why_ignored(self, rel_path: str, is_dir: bool) -> tuple[str, int, str] | None:
        """(file, line, pattern) of the ignore pattern that decides that git ignores
        ``rel_path``; None when it is not ignored."""
        for ignore in reversed(self.ignores):
            pattern = ignore.matching_pattern(rel_path, is_dir)
            if pattern is not None:
                return None if pattern.negated else (ignore.source, pattern.line, pattern.text)
        return None


def load_repo_ignores(start: Path) -> tuple[Path | None, list[GitIgnore]]:
    """The repository root at or above ``start``, and the ignore files that apply to ``start``.

    The list holds ``info/exclude`` then the ``.gitignore`` of the root and of each directory
    down to ``start`` (root-most first, bases relative to the root); (None, []) outside a repo.
    """
    start = start.resolve()
    if not start.is_dir():
        start = start.parent
    root = _find_repo_root(start)
    if root is None:
        return None, []
    exclude = _git_dir(root) / "info" / "exclude"
    ignores = [GitIgnore.from_file(exclude, "")] if _is_file(exclude) else []
    directories = [root]
    for part in start.relative_to(root).parts:
        directories.append(directories[-1] / part)
    for directory in directories:
        ignore = _read_gitignore(directory, directory.relative_to(root).as_posix())
        if ignore is not None:
            ignores.append(ignore)
    return root, [ignore for ignore in ignores if ignore]


def _read_gitignore(directory: Path, rel_dir: str) -> GitIgnore | None:
    """``directory``'s .gitignore, if it has one; like git (2.32+), a symlink is not read."""
    candidate = directory / GITIGNORE
    if not _is_file(candidate) or candidate.is_symlink():
        return None
    return GitIgnore.from_file(candidate, "" if rel_dir == "." else rel_dir)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _find_repo_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        try:
            if (directory / ".git").exists():
                return directory
        except OSError:
            continue
    return None


def _git_dir(root: Path) -> Path:
    """The common git directory of the repository at ``root`` (follows ``gitdir:`` files)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        line = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return dot_git
    if not line.startswith("gitdir:"):
        return dot_git
    git_dir = (root / line.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return git_dir
    return (git_dir / common).resolve()


def _relative_to(rel_path: str, base: str) -> str | None:
    rel_path = rel_path.strip("/")
    if not base:
        return rel_path or None
    if len(rel_path) <= len(base) or not rel_path.startswith(base) or rel_path[len(base)] != "/":
        return None
    return rel_path[len(base) + 1 :]


# --- parsing -------------------------------------------------------------------------------


def _parse(text: str) -> Iterable[_Pattern]:
    text = text.removeprefix("\ufeff")
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw or raw.startswith("#"):
            continue
        pattern = _parse_line(_trim_trailing_spaces(raw.removesuffix("\r")), number)
        if pattern is not None:
            yield pattern


def _trim_trailing_spaces(line: str) -> str:
    """Drop trailing spaces that are not escaped with a backslash (git's trim_trailing_spaces)."""
    last_space: int | None = None
    i = 0
    while i < len(line):
        char = line[i]
        if char == " ":
            if last_space is None:
                last_space = i
        else:
            if char == "\\":
                i += 1
                if i == len(line):
                    return line
            last_space = None
        i += 1
    return line if last_space is None else line[:last_space]


def _parse_line(line: str, number: int = 0) -> _Pattern | None:
    text = line
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line[:-1]
    basename_only = "/" not in line
    if not basename_only and line.startswith("/"):
        line = line[1:]
    if not line:
        return None
    try:
        regex: re.Pattern[str] | None = re.compile(
            _translate(line, pathname=not basename_only), re.DOTALL
        )
    except _NeverMatches:
        regex = None
    return _Pattern(text, regex, negated, dir_only, basename_only, number)


# --- wildmatch -> regex --------------------------------------------------------------------

_GLOB_SPECIAL = "*?[\\"


def _translate(pattern: str, pathname: bool) -> str:
    """Translate a wildmatch pattern (flags WM_PATHNAME when ``pathname``) to a regex."""
    # git strips the literal prefix before calling wildmatch, so a "**" right after it counts as
    # starting the pattern ("foo**/bar" matches "foobar" and "foo/x/bar").
    first_special = next((i for i, c in enumerate(pattern) if c in _GLOB_SPECIAL), -1)
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "*":
            regex, i = _star(pattern, i, pathname and i == first_special)
            out.append(regex)
            continue
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            regex, i = _bracket(pattern, i)
            out.append(regex)
            continue
        elif char == "\\":
            i += 1
            if i == len(pattern):
                raise _NeverMatches
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _star(pattern: str, start: int, at_start: bool) -> tuple[str, int]:
    """Translate the run of ``*`` at ``start``; return (regex, index after the run)."""
    end = start
    while end < len(pattern) and pattern[end] == "*":
        end += 1
    if end - start == 1:
        return "[^/]*", end
    rest = pattern[end:]
    after_slash = at_start or start == 0 or pattern[start - 1] == "/"
    if not after_slash:
        return "[^/]*", end
    if not rest:
        return ".*", end
    if rest.startswith("/"):
        return "(?:.*/)?", end + 1
    if rest.startswith("\\/"):
        return ".*", end  # "**\/" is "**/" without the zero-directory case
    return "[^/]*", end


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    """Translate the ``[...]`` at ``start`` as wildmatch reads it; return (regex, next index)."""
    i = start + 1
    negated = i < len(pattern) and pattern[i] in "!^"
    if negated:
        i += 1
    items: list[str] = []
    prev: str | None = None
    first = True
    while first or (i < len(pattern) and pattern[i] != "]"):
        first = False
        if i >= len(pattern):
            raise _NeverMatches
        item, prev, i = _bracket_item(pattern, i, prev)
        if item:
            items.append(item)
    if i >= len(pattern):
        raise _NeverMatches
    body = "".join(items)
    if negated:
        return f"[^/{body}]", i + 1
    return (f"(?!/)[{body}]" if body else "(?!)"), i + 1


def _bracket_item(pattern: str, i: int, prev: str | None) -> tuple[str, str | None, int]:
    """One element of a class at ``i``: (regex part, char a following ``-`` ranges from, next i)."""
    char = pattern[i]
    if char == "\\":
        i += 1
        if i >= len(pattern):
            raise _NeverMatches
        return re.escape(pattern[i]), pattern[i], i + 1
    if char == "-" and prev is not None and i + 1 < len(pattern) and pattern[i + 1] != "]":
        i += 1
        high = pattern[i]
        if high == "\\":
            i += 1
            if i >= len(pattern):
                raise _NeverMatches
            high = pattern[i]
        # The low end was already added as a single character; add the rest of the range.
        part = f"{re.escape(prev)}-{re.escape(high)}" if prev <= high else ""
        return part, None, i + 1
    if char == "[" and pattern.startswith(":", i + 1):
        return _posix_class(pattern, i)
    return re.escape(char), char, i + 1


def _posix_class(pattern: str, i: int) -> tuple[str, str | None, int]:
    """``[:name:]`` at ``i`` (wildmatch's rules: no ``:]`` means a literal ``[``)."""
    close = pattern.find("]", i + 2)
    if close < 0:
        raise _NeverMatches
    name = pattern[i + 2 : close]
    if not name.endswith(":") or close - (i + 2) < 1:
        return re.escape("["), "[", i + 1
    ranges = _POSIX_CLASSES.get(name[:-1])
    if ranges is None:
        raise _NeverMatches
    return ranges, None, close + 1

"""Glob patterns for the ``exclude``, ``extend-exclude`` and ``per-file-ignores`` config keys.

The syntax follows Ruff's:

* A pattern without ``/`` (``build``, ``*_pb2.py``) matches a file whose basename matches it, or
  any file below a directory whose name matches it.
* A pattern with ``/`` (``tests/fixtures``, ``src/**/gen_*.py``) is anchored at the directory of
  the config file and matched against the whole relative path; it also matches everything below
  a directory it matches. A trailing ``/`` is ignored. A leading ``./`` (or ``/``) is dropped
  but anchors the pattern: ``./build`` is only the ``build`` next to the config file.
* ``*`` matches any run of characters other than ``/``, ``?`` one such character, ``[abc]``,
  ``[a-z]``, ``[!a-z]`` / ``[^a-z]`` a character class (never ``/``), ``**`` as a whole
  component any number of components (including none), and ``\\x`` the character ``x``.
  A ``**`` inside a component (``foo**``) is read as ``*``.

Each pattern is compiled to one regular expression, once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Glob"]


@dataclass(frozen=True)
class Glob:
    """One compiled glob; ``matches`` takes a POSIX path relative to the config directory."""

    pattern: str
    regex: re.Pattern[str] = field(compare=False, repr=False)
    # True for a pattern without "/": it names one path component, wherever it is.
    component: bool = field(default=False, compare=False)

    @classmethod
    def compile(cls, pattern: str) -> Glob:
        """Compile ``pattern``; raise ``ValueError`` naming the pattern if it is invalid."""
        try:
            source = _translate(pattern)
            regex = re.compile(source, re.DOTALL)
        except (_GlobError, re.error) as err:
            raise ValueError(f"invalid glob pattern {pattern!r}: {err}") from None
        body, anchored = _normalize(pattern)
        return cls(pattern, regex, component=not anchored and "/" not in body)

    def matches(self, rel_path: str) -> bool:
        """Whether ``rel_path`` (POSIX, relative, no leading ``./``) matches this glob."""
        return self.regex.fullmatch(rel_path) is not None

    @property
    def is_literal(self) -> bool:
        """Whether the pattern is a plain name, with no wildcard, class, escape or slash."""
        return not any(char in self.pattern for char in "*?[]\\/") and self.pattern.strip() == (
            self.pattern
        )

    def matches_entry(self, rel_path: str, name: str) -> bool:
        """Whether a directory walk should skip the entry ``name`` at ``rel_path``. Its parents
        were already walked, so a component pattern is matched against the entry's own name
        (never against folders above the walk's start)."""
        return self.matches(name) if self.component else self.matches(rel_path)


class _GlobError(Exception):
    pass


def _normalize(pattern: str) -> tuple[str, bool]:
    """Strip ``./``, ``/`` and trailing ``/``; return (body, anchored by a leading ./ or /)."""
    body = pattern.strip()
    anchored = body.startswith(("./", "/"))
    while body.startswith(("./", "/")):
        body = body[1:].lstrip("/") if body.startswith("/") else body[2:]
    return body.rstrip("/"), anchored


def _translate(pattern: str) -> str:
    body, anchored = _normalize(pattern)
    segments = [seg for seg in body.split("/") if seg and seg != "."]
    if not segments:
        raise _GlobError("empty pattern")
    if not anchored and len(segments) == 1:
        # Basename pattern: any component of the path (the file's name or a directory's).
        return rf"(?:.*/)?{_segment(segments[0])}(?:/.*)?"
    # Everything below a matched directory matches too ("a/**" already covers it).
    return _anchored(segments) + ("" if segments[-1] == "**" else "(?:/.*)?")


def _anchored(segments: list[str]) -> str:
    parts: list[str] = []
    last = len(segments) - 1
    for index, seg in enumerate(segments):
        if seg == "**":
            parts.append(".*" if index == last else "(?:[^/]+/)*")
        else:
            parts.append(_segment(seg) + ("" if index == last else "/"))
    return "".join(parts)


def _segment(seg: str) -> str:
    """Translate one path component (no ``/``) to a regex."""
    out: list[str] = []
    i = 0
    while i < len(seg):
        char = seg[i]
        if char == "*":
            while i < len(seg) and seg[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            regex, i = _char_class(seg, i)
            out.append(regex)
            continue
        elif char == "\\":
            if i + 1 == len(seg):
                raise _GlobError("dangling '\\' at the end")
            i += 1
            out.append(re.escape(seg[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _char_class(seg: str, start: int) -> tuple[str, int]:
    """Translate the class starting at ``seg[start] == "["``; return (regex, index after it)."""
    i = start + 1
    negated = i < len(seg) and seg[i] in "!^"
    if negated:
        i += 1
    items: list[str] = []
    first = True
    while i < len(seg) and (first or seg[i] != "]"):
        first = False
        char = seg[i]
        if char == "\\" and i + 1 < len(seg):
            i += 1
            char = seg[i]
        if i + 2 < len(seg) and seg[i + 1] == "-" and seg[i + 2] != "]":
            high = seg[i + 2]
            if high < char:
                raise _GlobError(f"invalid range {char}-{high} in character class")
            items.append(f"{re.escape(char)}-{re.escape(high)}")
            i += 3
            continue
        items.append(re.escape(char))
        i += 1
    if i >= len(seg):
        raise _GlobError("unclosed character class '['")
    body = "".join(items)
    return (f"[^/{body}]" if negated else f"[{body}]"), i + 1

"""``--add-noqa``: a ``# noqa: CODE`` comment on every line with a finding.

This is how a large codebase adopts h2dlint: every current finding is suppressed where it is, and
from then on the run fails only on new ones. A line that already has a ``# noqa: ...`` comment (or
an ``# h2dlint: ignore[...]``) gets the new codes added to its list; a code already there is never
added twice. A comment can only go where one is a comment: a line whose end lies inside a string
(a triple-quoted string, or a multi-line f-string) or that ends with a backslash continuation gets
none, and its findings are left as they are.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from h2dlint.diagnostics import FILE_DIAGNOSTIC_CODES, Finding
from h2dlint.source import NEWLINE
from h2dlint.suppression import IGNORE, NOQA, raw_codes, split_codes

# A physical line and its ending (CR, LF or CRLF, as rows are counted).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@dataclass(frozen=True)
class NoqaEdit:
    text: str
    lines: int  # lines that got a comment, or more codes in theirs
    unplaced: tuple[Finding, ...]  # findings whose line cannot take a comment


@dataclass(frozen=True)
class _Layout:
    """Where comments are and can go, by row (1-based)."""

    comments: dict[int, tuple[int, str]]  # row -> (column, text) of its comment
    blocked: frozenset[int]  # rows whose end is not where a comment can go


def add_noqa(text: str, findings: Sequence[Finding]) -> NoqaEdit:
    """``text`` with a ``# noqa`` comment for each finding a comment can suppress."""
    wanted: dict[int, set[str]] = {}
    for finding in findings:
        if finding.noqa_row is not None and finding.code not in FILE_DIAGNOSTIC_CODES:
            wanted.setdefault(finding.noqa_row, set()).add(finding.code)
    if not wanted:
        return NoqaEdit(text, 0, ())
    lines = _LINE.findall(text)
    layout = _layout(text)
    unplaced_rows: set[int] = set()
    changed = 0
    for row, codes in sorted(wanted.items()):
        if layout is None or row in layout.blocked or not 0 < row <= len(lines):
            unplaced_rows.add(row)
            continue
        comment = layout.comments.get(row)
        updated = _with_codes(lines[row - 1], sorted(codes), comment)
        if updated != lines[row - 1]:
            lines[row - 1] = updated
            changed += 1
    unplaced = tuple(
        f for f in findings if f.noqa_row in unplaced_rows and f.code not in FILE_DIAGNOSTIC_CODES
    )
    return NoqaEdit("".join(lines), changed, unplaced)


def _with_codes(line: str, codes: Sequence[str], comment: tuple[int, str] | None) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    if comment is not None:
        column, comment_text = comment
        merged = _merge(comment_text, codes)
        if merged is not None:
            return body[:column] + merged + body[column + len(comment_text) :] + ending
    return body.rstrip(" \t") + "  # noqa: " + ", ".join(codes) + ending


def _merge(comment: str, codes: Sequence[str]) -> str | None:
    """``comment`` with ``codes`` added to its ``# noqa: ...`` (or ``# h2dlint: ignore[...]``)
    list; None when it has no such list. Codes it already names are not added again."""
    for pattern in (NOQA, IGNORE):
        for match in pattern.finditer(comment):
            named = match.group("codes")
            if not named or not named.strip():
                continue
            new = [code for code in codes if code not in split_codes(named) | raw_codes(named)]
            if not new:
                return comment
            # A list of codes separated by spaces keeps its style; any other gets commas.
            spaced = "," not in named and re.search(r"\w\s+\w", named.strip()) is not None
            separator = " " if spaced and pattern is NOQA else ", "
            # After the last code: `ignore[A, ]` becomes `ignore[A, B]`.
            start, stop = match.span("codes")
            end = start + len(comment[start:stop].rstrip(" ,"))
            return comment[:end] + separator + separator.join(new) + comment[stop:]
    return None


def _layout(text: str) -> _Layout | None:
    """The comments and the rows that cannot take one; None if the tokenizer fails."""
    # Rows as findings count them: CR, LF and CRLF each end one (the tokenizer reads LF only).
    normal = NEWLINE.sub("\n", text)
    comments: dict[int, tuple[int, str]] = {}
    blocked: set[int] = set()
    fstring_rows: list[int] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(normal).readline):
            kind, (start_row, start_col), (end_row, _) = token.type, token.start, token.end
            if kind == tokenize.COMMENT:
                comments[start_row] = (start_col, token.string)
            elif kind == tokenize.STRING and end_row > start_row:
                blocked.update(range(start_row, end_row))
            elif _FSTRING_START is not None and kind == _FSTRING_START:
                fstring_rows.append(start_row)
            elif _FSTRING_END is not None and kind == _FSTRING_END and fstring_rows:
                blocked.update(range(fstring_rows.pop(), end_row))
    except (tokenize.TokenError, SyntaxError):
        return None
    for row, line in enumerate(normal.split("\n"), start=1):
        if row not in comments and line.endswith("\\"):
            blocked.add(row)
    return _Layout(comments, frozenset(blocked))

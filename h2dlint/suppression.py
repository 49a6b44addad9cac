"""Suppression comments: ``# noqa``, ``# noqa: HTD102``, ``# h2dlint: ignore[HTD102]`` and
``# h2dlint: skip-file``.

Only real comments count (a ``# noqa`` inside a string does not); comments are found with the
tokenizer, and only in files that have something to suppress.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from h2dlint import legacy_codes

NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+\d+(?:\s*,?\s*[A-Za-z]+\d+)*))?(?![\w:])",
    re.IGNORECASE,
)
IGNORE = re.compile(r"#\s*h2dlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
SKIP_FILE = re.compile(r"#\s*h2dlint:\s*skip-file\b", re.IGNORECASE)
# What every suppression comment holds: without it the tokenizer (a tenth of a check) is spared.
_MAY_SUPPRESS = re.compile("noqa|h2dlint", re.IGNORECASE)
ALL = "*"


@dataclass
class Suppressions:
    """Per row: the codes suppressed there, or ALL."""

    by_row: dict[int, set[str]] = field(default_factory=dict)
    # (row, code) of every code named in a suppression comment, to check against known codes.
    named: list[tuple[int, str]] = field(default_factory=list)

    def suppresses(self, code: str, rows: tuple[int, ...]) -> bool:
        for row in rows:
            codes = self.by_row.get(row)
            if codes and (ALL in codes or code in codes):
                return True
        return False


def _comments(text: str) -> list[tuple[int, str]]:
    """(row, comment text) of every comment in ``text``."""
    try:
        return [
            (tok.start[0], tok.string)
            for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # The tokenizer disagrees with libcst on rare inputs; fall back to reading lines.
        return [
            (row, line[line.index("#") :])
            for row, line in enumerate(text.splitlines(), start=1)
            if "#" in line
        ]


def raw_codes(codes: str) -> set[str]:
    """The codes a comment names, upper-cased, as written."""
    return {c.upper() for c in re.split(r"[\s,]+", codes.strip()) if c}


def split_codes(codes: str) -> set[str]:
    """The codes a comment suppresses: an old ``H2Dnnn`` code suppresses its new code."""
    return {legacy_codes.new_code(c) or c for c in raw_codes(codes)}


def parse_suppressions(text: str) -> Suppressions:
    result = Suppressions()
    if not _MAY_SUPPRESS.search(text):
        return result
    for row, comment in _comments(text):
        codes: set[str] = set()
        for match in IGNORE.finditer(comment):
            named = match.group("codes")
            codes |= split_codes(named) if named and named.strip() else {ALL}
        for match in NOQA.finditer(comment):
            named = match.group("codes")
            codes |= split_codes(named) if named else {ALL}
        if codes:
            result.by_row.setdefault(row, set()).update(codes)
            result.named.extend((row, code) for code in sorted(codes) if code != ALL)
    return result


def has_skip_file(text: str) -> bool:
    if "h2dlint:" not in text:
        return False
    return any(SKIP_FILE.match(comment) for _, comment in _comments(text))

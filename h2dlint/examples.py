"""A rule's examples: code it must leave alone (:class:`Valid`) and code it must flag
(:class:`Invalid`), checked by ``tests/test_rule_examples.py``.

An example is written as an indented code block that starts on the line after its opening
quotes; it is dedented. In an invalid example, a line of carets under a code line marks one
report: the carets span its range on that line, and may follow a ``#`` (left of the first caret)
and be followed by the code reported when it is not the rule's own::

    Invalid(
        '''
        for row in rows:
            row.to("cuda")
        #   ^^^^^^^^^^^^^^
        '''
    )

A report that goes on over more lines marks the line it ends on with ``...`` and carets up to its
end (``#  ...^^^^``). Marker lines are not part of the code checked, and the test requires exactly
the reports marked, no more. The older form, ``Invalid(code, line, column)``, gives the start of
the one report expected.
"""

from __future__ import annotations

import re
import textwrap

# A report's expected code (None: the rule's own), start row and column, end row and column
# (1-based; the end column is one past the last character, as findings give it).
ExpectedReport = tuple[str | None, int, int, int, int]

_MARK = re.compile(r"^[ \t]*(?:#[ \t]*)?(\^+)(?:[ \t]+(HTD\d{3}))?[ \t]*$")
_END = re.compile(r"^[ \t]*(?:#[ \t]*)?\.\.\.(\^+)[ \t]*$")


def example_code(text: str) -> str:
    """An example's code as written in a rule: a block that starts on the line after the quotes
    is dedented (and loses that first newline); any other string is taken as it is."""
    if not text.startswith("\n"):
        return text
    return textwrap.dedent(text[1:])


def marked_reports(text: str) -> tuple[str, tuple[ExpectedReport, ...]]:
    """The code of a marked example, without its marker lines, and the reports they mark."""
    code: list[str] = []
    reports: list[list[str | int | None]] = []
    for line in example_code(text).splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        mark = _MARK.match(bare)
        if mark is not None and code:
            row = len(code)
            start = bare.index("^") + 1
            reports.append([mark.group(2), row, start, row, start + len(mark.group(1))])
            continue
        end = _END.match(bare)
        if end is not None and reports:
            reports[-1][3] = len(code)
            reports[-1][4] = bare.rindex("^") + 2
            continue
        code.append(line)
    found = tuple(
        (
            report[0] if isinstance(report[0], str) else None,
            int(report[1] or 0),
            int(report[2] or 0),
            int(report[3] or 0),
            int(report[4] or 0),
        )
        for report in reports
    )
    return "".join(code), found


class Valid:
    """Code the rule must leave alone.

    The text as written is kept and dedented on first use: every run imports the rules, and
    only the tests and the docs read their examples."""

    __slots__ = ("_code", "_text")

    def __init__(self, code: str) -> None:
        self._text = code
        self._code: str | None = None

    @property
    def code(self) -> str:
        if self._code is None:
            self._code = example_code(self._text)
        return self._code

    def __repr__(self) -> str:
        return f"Valid({self.code!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Valid) and other.code == self.code

    def __hash__(self) -> int:
        return hash(self.code)


class Invalid:
    """Code the rule must flag, with ``expected_fix`` the whole file after the rule's fix
    (``None`` when the rule offers none here).

    Marked (``line`` left 0): the carets in ``code`` say where each report is; ``code`` is
    the code without them, ``reports`` the reports, and ``line``:``column`` the first one's
    start. Unmarked: ``line``:``column`` (1-based) is where the one report starts;
    ``also_at`` the starts (line, column) of the rule's other reports in the example.

    As for :class:`Valid`, the text is resolved on first use, not when the rule is imported."""

    __slots__ = (
        "_column",
        "_fix",
        "_line",
        "_reports",
        "_resolved",
        "_text",
        "also_at",
        "message_contains",
    )

    def __init__(
        self,
        code: str,
        line: int = 0,
        column: int = 0,
        expected_fix: str | None = None,
        message_contains: str | None = None,
        reports: tuple[ExpectedReport, ...] = (),
        also_at: tuple[tuple[int, int], ...] = (),
    ) -> None:
        self._text = code
        self._line = line
        self._column = column
        self._fix = expected_fix
        self.message_contains = message_contains
        self._reports = reports
        self.also_at = also_at
        self._resolved = False

    def _resolve(self) -> None:
        if self._resolved:
            return
        if self._fix is not None:
            self._fix = example_code(self._fix)
        if not self._line:
            code, reports = marked_reports(self._text)
            if not reports:
                raise ValueError(
                    f"an invalid example marks no report (carets under a line):\n{code}"
                )
            self._text = code
            self._reports = reports
            self._line = reports[0][1]
            self._column = reports[0][2]
        else:
            self._text = example_code(self._text)  # a report over lines has no carets
        self._resolved = True

    @property
    def code(self) -> str:
        self._resolve()
        return self._text

    @property
    def line(self) -> int:
        self._resolve()
        return self._line

    @property
    def column(self) -> int:
        self._resolve()
        return self._column

    @property
    def reports(self) -> tuple[ExpectedReport, ...]:
        self._resolve()
        return self._reports

    @property
    def expected_fix(self) -> str | None:
        self._resolve()
        return self._fix

    def __repr__(self) -> str:
        return f"Invalid({self.code!r}, line={self.line}, column={self.column})"

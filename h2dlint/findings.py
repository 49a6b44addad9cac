"""Reports turned into findings: a located report's rule, message, range, fix and source line."""

from __future__ import annotations

from collections.abc import Sequence

from h2dlint.diagnostics import Finding, FixInfo
from h2dlint.dispatch import CheckedReport
from h2dlint.source import NEWLINE


def to_finding(item: CheckedReport, path: str, lines: Sequence[str]) -> Finding:
    rule = item.report.rule
    fix = None
    if item.edits:
        fix = FixInfo(rule.fix_safety, item.report.fix_message, item.edits)
    row = item.start.row
    return Finding(
        path=path,
        code=rule.code,
        message=item.report.message,
        start=item.start,
        end=item.end,
        url=rule.url(),
        fix=fix,
        noqa_row=row,
        source_line=lines[row - 1] if 0 < row <= len(lines) else "",
        confidence=item.report.confidence,
        severity=rule.severity,
    )


def physical_lines(text: str) -> list[str]:
    """The lines of ``text`` as the tokenizer counts them (only CR, LF and CRLF end a line)."""
    return NEWLINE.split(text)

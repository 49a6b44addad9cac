"""Applying fixes: node replacements, in passes, until nothing more applies.

Each pass checks the current text, takes every applicable fix whose nodes do not overlap an
already chosen fix, replaces those nodes in one transform, and re-parses the result. Fixes that
overlapped are offered again on the next pass, against the new tree. A pass whose output does not
parse is thrown away and the rule behind it is reported (E900) and barred from fixing this file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from h2dlint.confidence import meets
from h2dlint.diagnostics import (
    INTERNAL_ERROR_CODE,
    IO_ERROR_CODE,
    Confidence,
    Finding,
    FixSafety,
    Location,
    file_finding,
)
from h2dlint.dispatch import CheckedReport, check_module
from h2dlint.edits import replace_nodes
from h2dlint.findings import physical_lines, to_finding
from h2dlint.jobs import AnalysisOptions, EnabledRule
from h2dlint.parsing import CPythonParse, ParseFailure, parse

MAX_PASSES = 10


@dataclass
class FixOutcome:
    text: str
    findings: list[Finding]
    applied: int = 0
    applied_by_code: dict[str, int] = field(default_factory=dict)


def _span(item: CheckedReport) -> tuple[Location, Location]:
    assert item.node_span is not None, "only reports with replacements are fixes"
    return item.node_span


def _applicable(
    item: CheckedReport, unsafe: bool, barred: set[str], min_confidence: Confidence
) -> bool:
    rule = item.report.rule
    if not item.replacements or rule.code in barred:
        return False
    if not meets(item.report.confidence, min_confidence):
        return False  # not shown, so not fixed
    return rule.fix_safety is FixSafety.SAFE or (unsafe and rule.fix_safety is FixSafety.UNSAFE)


def _choose(items: Sequence[CheckedReport]) -> list[CheckedReport]:
    """A maximal set of fixes, in source order, whose edited spans do not overlap."""
    chosen: list[CheckedReport] = []
    last_end: Location | None = None
    for item in sorted(items, key=lambda it: (_span(it), it.report.rule.code)):
        start, end = _span(item)
        if last_end is None or start >= last_end:
            chosen.append(item)
            last_end = end
    return chosen


def _apply(module: cst.Module, items: Sequence[CheckedReport]) -> str:
    replacements = {old: new for item in items for old, new in item.replacements}
    return replace_nodes(module, replacements).code


def _parses(text: str, path: str) -> cst.Module | None:
    try:
        return parse(text, path)
    except ParseFailure:
        return None


def _culprits(module: cst.Module, chosen: Sequence[CheckedReport], path: str) -> set[str]:
    """The rules whose fix, applied alone, breaks the code; all of them if none does alone."""
    bad = {
        item.report.rule.code for item in chosen if _parses(_apply(module, [item]), path) is None
    }
    return bad or {item.report.rule.code for item in chosen}


def fix_text(
    text: str,
    path: str,
    rules: Sequence[EnabledRule],
    *,
    unsafe: bool = False,
    options: AnalysisOptions = (),
    cpython: CPythonParse | None = None,
    min_confidence: Confidence = Confidence.MEDIUM,
) -> FixOutcome:
    """Apply every applicable fix to ``text``; return the new text and what is left to report.
    ``cpython``: what CPython made of ``text``, when the caller knows. Only the fixes of
    findings at least ``min_confidence`` sure apply; every finding is returned."""
    try:
        module = parse(text, path, cpython)
    except ParseFailure as failure:
        return FixOutcome(text, [failure.finding])
    applied_by_code: dict[str, int] = {}
    barred: set[str] = set()
    errors: list[Finding] = []
    for _ in range(MAX_PASSES):
        result = check_module(module, text, path, rules, options)
        candidates = [
            item for item in result.reports if _applicable(item, unsafe, barred, min_confidence)
        ]
        # libcst cannot reproduce some files byte for byte (a lone CR, say); a fix there would
        # rewrite more than it should, so such a file is checked but never fixed. A report with
        # a fix had the whole code generated to be located: result.code.
        if candidates and (result.code if result.code is not None else module.code) != text:
            errors.append(
                file_finding(
                    path,
                    IO_ERROR_CODE,
                    "fix not applied: the parser cannot reproduce this file exactly "
                    "(unusual line endings?), so it is left as it is",
                )
            )
            candidates = []
        if not candidates:
            return _outcome(result.reports, result.errors + errors, text, path, applied_by_code)
        chosen = _choose(candidates)
        new_text = _apply(module, chosen)
        new_module = _parses(new_text, path)
        if new_module is None:
            codes = sorted(_culprits(module, chosen, path))
            barred.update(codes)
            errors.append(
                file_finding(
                    path,
                    INTERNAL_ERROR_CODE,
                    f"fix by {', '.join(codes)} produced code that does not parse; "
                    "the file was left without it, please report it",
                )
            )
            continue
        if new_text == text:
            barred.update(item.report.rule.code for item in chosen)
            continue
        for item in chosen:
            code = item.report.rule.code
            applied_by_code[code] = applied_by_code.get(code, 0) + 1
        module, text = new_module, new_text
    outcome = _final(module, text, path, rules, options)
    outcome.applied_by_code = applied_by_code
    outcome.applied = sum(applied_by_code.values())
    outcome.findings.extend(errors)
    return outcome


def _outcome(
    reports: Sequence[CheckedReport],
    errors: list[Finding],
    text: str,
    path: str,
    applied_by_code: dict[str, int],
) -> FixOutcome:
    lines = physical_lines(text)
    findings = [to_finding(item, path, lines) for item in reports] + errors
    return FixOutcome(text, findings, sum(applied_by_code.values()), applied_by_code)


def _final(
    module: cst.Module,
    text: str,
    path: str,
    rules: Sequence[EnabledRule],
    options: AnalysisOptions,
) -> FixOutcome:
    result = check_module(module, text, path, rules, options)
    return _outcome(result.reports, result.errors, text, path, {})

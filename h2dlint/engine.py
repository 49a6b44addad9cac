"""Checking one parsed file: every enabled rule in one traversal, reports turned into findings.

The engine knows no rule by name. It is given rule classes with their settings, dispatches each
node to the ``visit_*``/``leave_*`` methods the rules define, and turns what they report into
located, suppression-filtered findings.
"""

from __future__ import annotations

import ast
import bisect
import re
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import libcst as cst

from h2dlint.context import FileContext
from h2dlint.diagnostics import (
    INTERNAL_ERROR_CODE,
    SYNTAX_ERROR_CODE,
    Edit,
    Finding,
    FixInfo,
    Location,
    file_finding,
)
from h2dlint.rule import Report, Rule
from h2dlint.suppression import parse_suppressions

STATEMENT_TYPES = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


@dataclass(frozen=True)
class EnabledRule:
    """A rule class with the option values it runs with in one file."""

    rule: type[Rule]
    settings: tuple[tuple[str, Any], ...] = ()

    @property
    def code(self) -> str:
        return self.rule.code


@dataclass
class CheckedReport:
    """A report located in the file, with its edits, ready to become a finding or a fix."""

    report: Report
    start: Location
    end: Location
    statement_row: int
    edits: tuple[Edit, ...]
    # Where the replaced nodes are: fixes whose nodes overlap are never applied together.
    node_span: tuple[Location, Location] | None = None

    @property
    def replacements(self) -> tuple[tuple[cst.CSTNode, cst.CSTNode], ...]:
        return self.report.replacements


class ParseFailure(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def _cpython_syntax_error(text: str) -> SyntaxError | None:
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _syntax_finding(text: str, path: str, exc: cst.ParserSyntaxError) -> Finding:
    """Locate a syntax error as CPython does (its messages and columns are the ones users
    know), falling back to libcst's own when CPython accepts the file (newer syntax)."""
    cpython = _cpython_syntax_error(text)
    if cpython is not None and cpython.lineno:
        return file_finding(
            path,
            SYNTAX_ERROR_CODE,
            f"SyntaxError: {cpython.msg}",
            cpython.lineno,
            max(cpython.offset or 1, 1),
        )
    message = " ".join(exc.message.split()) or "invalid syntax"
    return file_finding(
        path, SYNTAX_ERROR_CODE, f"SyntaxError: {message}", exc.editor_line, exc.editor_column
    )


def parse(text: str, path: str) -> cst.Module:
    """Parse ``text`` with libcst, or raise :class:`ParseFailure` with a located E999 finding."""
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise ParseFailure(_syntax_finding(text, path, exc)) from exc
    except (RecursionError, MemoryError) as exc:
        raise ParseFailure(
            file_finding(path, SYNTAX_ERROR_CODE, "file is too deeply nested to parse")
        ) from exc


def syntax_check(text: str, path: str) -> Finding | None:
    """A syntax error finding for a file no rule needs to parse, at a fraction of libcst's cost:
    stdlib ``ast`` first; libcst confirms, so that a file only this interpreter cannot read
    (newer syntax) is not reported."""
    if _cpython_syntax_error(text) is None:
        return None
    try:
        parse(text, path)
    except ParseFailure as failure:
        return failure.finding
    return None


class _Dispatcher(cst.CSTVisitor):
    """Sends each node to the rules that handle its type, keeping the ancestor stack."""

    def __init__(self, context: FileContext, rules: Sequence[Rule], errors: list[Finding]) -> None:
        self.context = context
        self.errors = errors
        self.visits: dict[str, list[tuple[Rule, Callable[[Any], Any]]]] = {}
        self.leaves: dict[str, list[tuple[Rule, Callable[[Any], Any]]]] = {}
        for rule in rules:
            for attr in dir(type(rule)):
                if attr.startswith("visit_"):
                    self.visits.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))
                elif attr.startswith("leave_"):
                    self.leaves.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))
        self.broken: set[int] = set()

    def _call(self, handlers: list[tuple[Rule, Callable[[Any], Any]]], node: cst.CSTNode) -> None:
        for rule, handler in handlers:
            if id(rule) in self.broken:
                continue
            try:
                handler(node)
            except Exception as exc:  # a rule bug must not lose the rest of the run
                self.broken.add(id(rule))
                where = traceback.extract_tb(exc.__traceback__)[-1]
                self.errors.append(
                    file_finding(
                        self.context.path,
                        INTERNAL_ERROR_CODE,
                        f"internal error in rule {rule.code}: {type(exc).__name__}: {exc} "
                        f"(at {where.filename}:{where.lineno}); the rule was skipped for this "
                        "file, please report it",
                    )
                )

    def on_visit(self, node: cst.CSTNode) -> bool:
        handlers = self.visits.get(type(node).__name__)
        if handlers:
            self._call(handlers, node)
        self.context.ancestors.append(node)
        if isinstance(node, STATEMENT_TYPES):
            self.context.statements.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.context.ancestors.pop()
        if isinstance(original_node, STATEMENT_TYPES):
            self.context.statements.pop()
        handlers = self.leaves.get(type(original_node).__name__)
        if handlers:
            self._call(handlers, original_node)


@dataclass
class CheckResult:
    reports: list[CheckedReport]
    suppressed: list[CheckedReport]
    errors: list[Finding]
    context: FileContext


AnalysisOptions = tuple[tuple[str, Any], ...]


def check_module(
    module: cst.Module,
    text: str,
    path: str,
    rules: Sequence[EnabledRule],
    options: AnalysisOptions = (),
) -> CheckResult:
    """Run ``rules`` over ``module`` in one traversal."""
    context = FileContext(path, text, module, dict(options))
    instances = [enabled.rule(context, dict(enabled.settings)) for enabled in rules]
    errors: list[Finding] = []
    if instances:
        try:
            module.visit(_Dispatcher(context, instances, errors))
        except RecursionError:
            errors.append(
                file_finding(path, INTERNAL_ERROR_CODE, "file is too deeply nested to check")
            )
    raw = [report for rule in instances for report in rule.drain_reports()]
    located = [_locate(context, report) for report in raw]
    if not located:
        return CheckResult([], [], errors, context)
    suppressions = parse_suppressions(text)
    kept, suppressed = [], []
    for item in located:
        rows = (item.start.row, item.statement_row)
        (suppressed if suppressions.suppresses(item.report.rule.code, rows) else kept).append(item)
    return CheckResult(kept, suppressed, errors, context)


class ReplaceNodes(cst.CSTTransformer):
    """Replaces nodes by identity: the one way fixes are applied."""

    def __init__(self, replacements: dict[cst.CSTNode, cst.CSTNode]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        return self.replacements.get(original_node, updated_node)


def _offset_location(line_starts: Sequence[int], offset: int) -> Location:
    row = bisect.bisect_right(line_starts, offset)
    return Location(row, offset - line_starts[row - 1] + 1)


def _text_edit(module: cst.Module, report: Report) -> tuple[Edit, ...]:
    """The fix as one text edit, exactly as applying it rewrites the file (indentation,
    comments and all): the region where the file before and after the fix differ."""
    if not report.replacements:
        return ()
    before = module.code
    after = module.visit(ReplaceNodes(dict(report.replacements))).code
    if after == before:
        return ()
    limit = min(len(before), len(after))
    prefix = 0
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    limit -= prefix
    suffix = 0
    while suffix < limit and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    starts = [0] + [m.end() for m in _NEWLINE.finditer(before)]
    return (
        Edit(
            after[prefix : len(after) - suffix],
            _offset_location(starts, prefix),
            _offset_location(starts, len(before) - suffix),
        ),
    )


def _locate(context: FileContext, report: Report) -> CheckedReport:
    span = context.position(report.node)
    statement_row = span.start.line
    if report.statement is not None:
        statement_row = context.position(report.statement).start.line
    node_span = None
    if report.replacements:
        spans = [context.position(old) for old, _ in report.replacements]
        node_span = (
            min(Location(s.start.line, s.start.column + 1) for s in spans),
            max(Location(s.end.line, s.end.column + 1) for s in spans),
        )
    return CheckedReport(
        report,
        Location(span.start.line, span.start.column + 1),
        Location(span.end.line, span.end.column + 1),
        statement_row,
        _text_edit(context.module, report),
        node_span,
    )


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
    )


_NEWLINE = re.compile(r"\r\n|\r|\n")


def physical_lines(text: str) -> list[str]:
    """The lines of ``text`` as the tokenizer counts them (only CR, LF and CRLF end a line)."""
    return _NEWLINE.split(text)


def check_text(
    text: str, path: str, rules: Sequence[EnabledRule], options: AnalysisOptions = ()
) -> list[Finding]:
    """Parse ``text`` and check it: the findings, a syntax error, or internal errors."""
    try:
        module = parse(text, path)
    except ParseFailure as failure:
        return [failure.finding]
    result = check_module(module, text, path, rules, options)
    lines = physical_lines(text)
    return [to_finding(item, path, lines) for item in result.reports] + result.errors

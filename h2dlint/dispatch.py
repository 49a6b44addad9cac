"""Checking one parsed file: every enabled rule in one traversal, reports located and filtered.

The dispatch knows no rule by name. It is given rule classes with their settings, sends each node
to the ``visit_*``/``leave_*`` methods the rules define (the walk is ``walk.walk_handlers``), and
locates what they report (with a fix's text edit, ``edits.text_edit``), dropping what a
suppression comment covers.
"""

from __future__ import annotations

import ast
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from h2dlint.context import FileContext
from h2dlint.diagnostics import INTERNAL_ERROR_CODE, Edit, Finding, Location, file_finding
from h2dlint.edits import text_edit
from h2dlint.jobs import AnalysisOptions, EnabledRule
from h2dlint.rule import Replacement, Report, Rule
from h2dlint.walk import Handlers, HandlerTable, walk_handlers


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
    # The first row of the report's enclosing construct, whose suppression comment applies too.
    enclosing_row: int | None = None

    @property
    def suppression_rows(self) -> tuple[int, ...]:
        """The rows whose suppression comments apply: the report's first, its statement's and
        its enclosing construct's."""
        rows = (self.start.row, self.statement_row)
        return rows if self.enclosing_row is None else (*rows, self.enclosing_row)

    @property
    def replacements(self) -> tuple[Replacement, ...]:
        return self.report.replacements


class _Dispatcher:
    """Sends each node to the rules that handle its type, keeping the ancestor and statement
    stacks of the context; a rule that raises is skipped for the rest of the file."""

    def __init__(self, context: FileContext, rules: Sequence[Rule], errors: list[Finding]) -> None:
        self.context = context
        self.errors = errors
        self.table = HandlerTable(rules)
        self.broken: set[int] = set()

    def _call(self, handlers: Handlers, node: cst.CSTNode) -> None:
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

    def walk(self, root: cst.CSTNode) -> None:
        context = self.context
        walk_handlers(root, self.table, self._call, context.ancestors, context.statements)


@dataclass
class CheckResult:
    reports: list[CheckedReport]  # not suppressed
    errors: list[Finding]
    # The module's generated code, when locating the reports generated all of it.
    code: str | None = None


def check_module(
    module: cst.Module,
    text: str,
    path: str,
    rules: Sequence[EnabledRule],
    options: AnalysisOptions = (),
    python_tree: ast.Module | None = None,
) -> CheckResult:
    """Run ``rules`` over ``module`` in one traversal. ``python_tree``: CPython's tree of the
    same text, when the caller has one (it locates findings faster)."""
    context = FileContext(path, text, module, dict(options), python_tree)
    instances = [enabled.rule(context, dict(enabled.settings)) for enabled in rules]
    errors: list[Finding] = []
    if instances:
        try:
            _Dispatcher(context, instances, errors).walk(module)
        except RecursionError:
            errors.append(
                file_finding(path, INTERNAL_ERROR_CODE, "file is too deeply nested to check")
            )
    raw = [report for rule in instances for report in rule.drain_reports()]
    if raw:
        # A fix's edit is located in the whole generated code, unless it replaces one
        # expression by another (edits.text_edit splices its code into the source); a finding
        # alone needs only the code of the statement that holds it.
        context.locate(
            _reported_nodes(raw),
            whole=any(r.replacements and not _one_expression(r) for r in raw),
            tops=[r.top for r in raw],
        )
    located = [_locate(context, report) for report in raw]
    code = context.positions.code if raw else None
    suppressions = context.suppressions if located else None
    context.release()
    if suppressions is None:
        return CheckResult([], errors)
    kept = [
        item
        for item in located
        if not suppressions.suppresses(item.report.rule.code, item.suppression_rows)
    ]
    return CheckResult(kept, errors, code)


def _one_expression(report: Report) -> bool:
    """Whether the report's fix replaces one expression by another."""
    if len(report.replacements) != 1:
        return False
    old, new = report.replacements[0]
    return isinstance(old, cst.BaseExpression) and isinstance(new, cst.BaseExpression)


def _reported_nodes(reports: Sequence[Report]) -> Iterator[cst.CSTNode]:
    for report in reports:
        yield report.node
        if report.statement is not None:
            yield report.statement
        if report.enclosing is not None:
            yield report.enclosing
        for old, _ in report.replacements:
            yield old


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
        text_edit(context, report),
        node_span,
        None if report.enclosing is None else context.position(report.enclosing).start.line,
    )

"""Checking one parsed file: every enabled rule in one traversal, reports turned into findings.

The engine knows no rule by name. It is given rule classes with their settings, dispatches each
node to the ``visit_*``/``leave_*`` methods the rules define, and turns what they report into
located, suppression-filtered findings.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import libcst as cst
from libcst import MaybeSentinel

from h2dlint.context import FileContext
from h2dlint.diagnostics import (
    INTERNAL_ERROR_CODE,
    IO_ERROR_CODE,
    SYNTAX_ERROR_CODE,
    Edit,
    Finding,
    FixInfo,
    Location,
    file_finding,
)
from h2dlint.jobs import AnalysisOptions, EnabledRule
from h2dlint.rule import Replacement, Report, Rule
from h2dlint.source import NEWLINE, python_ast
from h2dlint.suppression import parse_suppressions

STATEMENT_TYPES = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


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
    def replacements(self) -> tuple[Replacement, ...]:
        return self.report.replacements


class ParseFailure(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


@dataclass
class CPythonParse:
    """What CPython makes of a file: its tree, or the syntax error it raised."""

    tree: ast.Module | None = None
    error: SyntaxError | None = None
    # A finding that ends the file's check: nesting libcst must never see.
    fatal: Finding | None = None


def cpython_parse(text: str, path: str) -> CPythonParse:
    """Parse ``text`` with CPython. A file it refuses for nesting too deeply gets a fatal E999
    finding: it must never reach libcst, whose native parser overflows the C stack on deep
    nesting (``x = ((((...))))`` a few thousand deep), a segfault that would end the whole run."""
    try:
        return CPythonParse(tree=python_ast(text))
    except SyntaxError as exc:
        if exc.msg != "too many nested parentheses":
            return CPythonParse(error=exc)
        return CPythonParse(error=exc, fatal=cpython_syntax_finding(exc, path))
    except (RecursionError, MemoryError):
        return CPythonParse(
            fatal=file_finding(path, SYNTAX_ERROR_CODE, "file is too deeply nested to parse")
        )
    except ValueError:
        return CPythonParse()


def cpython_syntax_finding(error: SyntaxError, path: str) -> Finding:
    """The E999 finding for a syntax error CPython raised: its message, row and column."""
    row, column = error.lineno or 1, max(error.offset or 1, 1)
    return file_finding(path, SYNTAX_ERROR_CODE, f"SyntaxError: {error.msg}", row, column)


def _syntax_finding(exc: cst.ParserSyntaxError, path: str, cpython: CPythonParse) -> Finding:
    """The finding for a file libcst cannot parse. Where CPython refuses it too, a syntax error
    located as CPython does (its messages and columns are the ones users know). Where CPython
    accepts it (syntax newer than libcst's, or a corner libcst's tokenizer refuses, such as a
    line continuation at the end of the file), the code is valid: the file was not checked."""
    message = " ".join(exc.message.split()) or "invalid syntax"
    if cpython.error is not None and cpython.error.lineno:
        return cpython_syntax_finding(cpython.error, path)
    if cpython.tree is not None:
        return file_finding(
            path,
            IO_ERROR_CODE,
            f"file not checked: Python accepts it, but h2dlint's parser (libcst) does not: "
            f"{message}",
            exc.editor_line,
            exc.editor_column,
        )
    return file_finding(
        path, SYNTAX_ERROR_CODE, f"SyntaxError: {message}", exc.editor_line, exc.editor_column
    )


def parse(text: str, path: str, cpython: CPythonParse | None = None) -> cst.Module:
    """Parse ``text`` with libcst, or raise :class:`ParseFailure` with a located finding.
    ``cpython``: what CPython made of the same text, when the caller knows (else, on a failure,
    CPython parses it to tell a syntax error from code libcst cannot read)."""
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        known = cpython if cpython is not None else cpython_parse(text, path)
        raise ParseFailure(_syntax_finding(exc, path, known)) from exc
    except (RecursionError, MemoryError) as exc:
        raise ParseFailure(
            file_finding(path, SYNTAX_ERROR_CODE, "file is too deeply nested to parse")
        ) from exc


def syntax_check(text: str, path: str, cpython: CPythonParse) -> Finding | None:
    """The finding for a file CPython refused (``cpython``) and no rule needs to parse: libcst
    confirms, so that a file only this interpreter cannot read (newer syntax) is not reported."""
    try:
        parse(text, path, cpython)
    except ParseFailure as failure:
        return failure.finding
    return None


def _child_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of a node class that libcst's visitor descends into, in its order.

    ``_visit_and_replace_children`` visits them one call at a time, ``visit_*(self, "field",
    ...)``, in the order the new node's fields are listed; the compiler keeps a function's
    constants in the order of their first use, so the field names among its constants are that
    order. ``tests/test_walk.py`` checks it against libcst's own traversal on real code.
    """
    names = {f.name for f in dataclasses.fields(kind)}
    constants = kind._visit_and_replace_children.__code__.co_consts
    return tuple(dict.fromkeys(c for c in constants if type(c) is str and c in names))


@functools.cache
def _is_statement(kind: type[cst.CSTNode]) -> bool:
    return issubclass(kind, STATEMENT_TYPES)


def _subclasses(*bases: type) -> frozenset[type[cst.CSTNode]]:
    found: set[type[cst.CSTNode]] = set()
    stack: list[type] = list(bases)
    while stack:
        kind = stack.pop()
        found.add(kind)
        stack.extend(kind.__subclasses__())
    return frozenset(found)


# Whitespace, comments and punctuation: nodes that hold nothing but more of them. A walk for
# rules that handle none of them skips them, subtrees and all (about half of all nodes).
TOKEN_TYPES = _subclasses(
    cst.BaseParenthesizableWhitespace,
    cst.BaseUnaryOp,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseAugOp,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Newline,
    cst.Comment,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Asynchronous,
    cst.ImportStar,
)
# Nodes that hold nothing but tokens: skipped with them, unless a rule handles them.
LEAF_TYPES: frozenset[type[cst.CSTNode]] = frozenset(
    {
        cst.Name,
        cst.Integer,
        cst.Float,
        cst.Imaginary,
        cst.SimpleString,
        cst.Ellipsis,
        cst.FormattedStringText,
        cst.Pass,
        cst.Break,
        cst.Continue,
    }
)
Handlers = list[tuple[Rule, Callable[[Any], Any]]]
# Per node class: its visit handlers, leave handlers, whether it is a statement, child fields.
_Plan = tuple[Handlers, Handlers, bool, tuple[str, ...]]
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


class _Dispatcher:
    """Sends each node to the rules that handle its type, keeping the ancestor and statement
    stacks of the context.

    A read-only walk in libcst's visiting order: libcst's own ``module.visit`` rebuilds and
    validates every node it leaves (and calls two attribute hooks per field), which cost more
    than twice the walk itself."""

    def __init__(self, context: FileContext, rules: Sequence[Rule], errors: list[Finding]) -> None:
        self.context = context
        self.errors = errors
        self.visits: dict[str, Handlers] = {}
        self.leaves: dict[str, Handlers] = {}
        for rule in rules:
            for attr in dir(type(rule)):
                if attr.startswith("visit_"):
                    self.visits.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))
                elif attr.startswith("leave_"):
                    self.leaves.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))
        self.broken: set[int] = set()
        self.plans: dict[type[cst.CSTNode], _Plan] = {}
        handled = set(self.visits) | set(self.leaves)
        self.skipped: frozenset[type[cst.CSTNode]] = frozenset()
        if not any(kind.__name__ in handled for kind in TOKEN_TYPES):
            leaves = {kind for kind in LEAF_TYPES if kind.__name__ not in handled}
            self.skipped = TOKEN_TYPES | leaves

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

    def _plan(self, kind: type[cst.CSTNode]) -> _Plan:
        fields = _FIELDS.get(kind)
        if fields is None:
            fields = _FIELDS[kind] = _child_fields(kind)
        name = kind.__name__
        plan = (self.visits.get(name, []), self.leaves.get(name, []), _is_statement(kind), fields)
        self.plans[kind] = plan
        return plan

    def walk(self, root: cst.CSTNode) -> None:
        plans, make_plan, call = self.plans, self._plan, self._call
        ancestors, statements = self.context.ancestors, self.context.statements
        sentinel, skipped = MaybeSentinel, self.skipped

        def visit(node: cst.CSTNode) -> None:
            kind = node.__class__
            plan = plans.get(kind)
            if plan is None:
                plan = make_plan(kind)
            visits, leaves, statement, fields = plan
            if visits:
                call(visits, node)
            ancestors.append(node)
            if statement:
                statements.append(node)
            for name in fields:
                value = getattr(node, name)
                value_kind = value.__class__
                if value_kind is tuple or value_kind is list:
                    for child in value:
                        if child.__class__ not in skipped:
                            visit(child)
                elif value is not None and value_kind is not sentinel and value_kind not in skipped:
                    visit(value)
            ancestors.pop()
            if statement:
                statements.pop()
            if leaves:
                call(leaves, node)

        try:
            visit(root)
        finally:
            # The recursive closure is a reference cycle (visit -> its cell -> visit) that would
            # keep the dispatcher, its rules and so the whole tree alive until the next garbage
            # collection.
            visit = None  # type: ignore[assignment]


def visit_read_only(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a visitor that changes nothing, without libcst's cost.

    libcst's ``visit`` rebuilds and validates every node it leaves even for a ``CSTVisitor``
    (and throws the copies away), which costs more than the walk itself. This walks the same
    nodes in the same order and calls ``on_visit`` (whose False skips the children) and
    ``on_leave``, so every ``visit_<Node>``/``leave_<Node>`` method runs as under ``visit``; the
    per-field hooks (``visit_<Node>_<field>``) are not called.

    What it does not visit: whitespace, comments and punctuation (``TOKEN_TYPES``, about half of
    all nodes) unless the visitor defines a ``visit_``/``leave_`` method for one of them; and,
    for a visitor that keeps libcst's own ``on_visit``/``on_leave``, also the token-only leaves
    (``LEAF_TYPES``: names, numbers, strings...) it has no method for. A visitor that overrides
    ``on_visit`` sees every other node. The handlers of each node class are looked up once per
    visitor class, not by name on every node.
    """
    _plan_of(visitor.__class__).walk(node, visitor)


class _ReadOnlyPlan:
    """How one visitor class walks: per node class, its handlers and child fields."""

    def __init__(self, visitor_class: type[cst.CSTVisitor]) -> None:
        self.visitor_class = visitor_class
        self.default = visitor_class.on_visit in _DEFAULT_ON_VISIT and (
            visitor_class.on_leave in _DEFAULT_ON_LEAVE
        )
        handled = {
            name[6:]
            for name in dir(visitor_class)
            if name.startswith(("visit_", "leave_")) and self._own(name) is not None
        }
        # Tokens nest (a comment is inside an empty line): one handled keeps them all.
        skipped: set[type[cst.CSTNode]] = set()
        if not any(kind.__name__ in handled for kind in TOKEN_TYPES):
            skipped |= TOKEN_TYPES
        if self.default:
            skipped |= {kind for kind in LEAF_TYPES if kind.__name__ not in handled}
        self.skipped = frozenset({*skipped, type(None), MaybeSentinel})
        # node class -> (visit function, leave function, child fields)
        self.kinds: dict[type[cst.CSTNode], tuple[Any, Any, tuple[str, ...]]] = {}

    def _own(self, name: str) -> Any:
        """The visitor class's own method ``name``: None where it is libcst's empty stub."""
        found = getattr(self.visitor_class, name, None)
        return None if found is None or found is getattr(cst.CSTVisitor, name, None) else found

    def entry(self, kind: type[cst.CSTNode]) -> tuple[Any, Any, tuple[str, ...]]:
        """``kind``'s visit function, leave function (None where the class has none) and child
        fields."""
        found = self.kinds.get(kind)
        return found if found is not None else self._kind(kind)

    def _kind(self, kind: type[cst.CSTNode]) -> tuple[Any, Any, tuple[str, ...]]:
        fields = _FIELDS.get(kind)
        if fields is None:
            fields = _FIELDS[kind] = _child_fields(kind)
        name = kind.__name__
        entry = (self._own(f"visit_{name}"), self._own(f"leave_{name}"), fields)
        self.kinds[kind] = entry
        return entry

    def walk(self, node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
        kinds, make, skipped = self.kinds, self._kind, self.skipped
        default = self.default
        on_visit, on_leave = visitor.on_visit, visitor.on_leave

        def visit(current: cst.CSTNode) -> None:
            kind = current.__class__
            entry = kinds.get(kind)
            if entry is None:
                entry = make(kind)
            visit_function, leave_function, names = entry
            if default:
                enter = visit_function is None or visit_function(visitor, current) is not False
            else:
                enter = on_visit(current)
            if enter:
                for name in names:
                    value = getattr(current, name)
                    value_kind = value.__class__
                    if value_kind is tuple or value_kind is list:
                        for child in value:
                            if child.__class__ not in skipped:
                                visit(child)
                    elif value_kind not in skipped:  # None and MaybeSentinel are in it
                        visit(value)
            if not default:
                on_leave(current)
            elif leave_function is not None:
                leave_function(visitor, current)

        try:
            visit(node)
        finally:
            visit = None  # type: ignore[assignment]  # the closure's reference cycle


_READ_ONLY_PLANS: dict[type[cst.CSTVisitor], _ReadOnlyPlan] = {}


def _plan_of(visitor_class: type[cst.CSTVisitor]) -> _ReadOnlyPlan:
    plan = _READ_ONLY_PLANS.get(visitor_class)
    if plan is None:
        plan = _READ_ONLY_PLANS[visitor_class] = _ReadOnlyPlan(visitor_class)
    return plan


class ReadOnlyVisitor(cst.CSTVisitor):
    """A ``CSTVisitor`` whose ``on_visit``/``on_leave`` find the ``visit_<Node>``/
    ``leave_<Node>`` methods once per class instead of by name on every node: the base of
    visitors that override ``on_visit`` and call ``super().on_visit(node)``."""

    _entries: ClassVar[dict[type[cst.CSTNode], tuple[Any, Any, tuple[str, ...]]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._entries = {}  # the class's own table, filled on first use of each node class

    def on_visit(self, node: cst.CSTNode) -> bool:
        entry = self._entries.get(node.__class__)
        if entry is None:
            entry = self._entries[node.__class__] = _plan_of(self.__class__).entry(node.__class__)
        visit = entry[0]
        return visit is None or visit(self, node) is not False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        entry = self._entries.get(original_node.__class__)
        if entry is None:
            entry = _plan_of(self.__class__).entry(original_node.__class__)
            self._entries[original_node.__class__] = entry
        if entry[1] is not None:
            entry[1](self, original_node)


_DEFAULT_ON_VISIT = (cst.CSTVisitor.on_visit, ReadOnlyVisitor.on_visit)
_DEFAULT_ON_LEAVE = (cst.CSTVisitor.on_leave, ReadOnlyVisitor.on_leave)


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
) -> CheckResult:
    """Run ``rules`` over ``module`` in one traversal."""
    context = FileContext(path, text, module, dict(options))
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
        # A fix's edit is located in the whole generated code; a finding alone needs only
        # the code up to its node.
        context.locate(_reported_nodes(raw), whole=any(r.replacements for r in raw))
    located = [_locate(context, report) for report in raw]
    code = context.positions.code if raw else None
    context.release()
    if not located:
        return CheckResult([], errors)
    suppressions = parse_suppressions(text)
    kept = [
        item
        for item in located
        if not suppressions.suppresses(item.report.rule.code, (item.start.row, item.statement_row))
    ]
    return CheckResult(kept, errors, code)


class ReplaceNodes(cst.CSTTransformer):
    """Replaces nodes by identity: the one way fixes are applied."""

    def __init__(
        self, replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]]
    ) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(  # type: ignore[override]  # a replacement may be of another node type
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        return self.replacements.get(original_node, updated_node)


def _text_edit(context: FileContext, report: Report) -> tuple[Edit, ...]:
    """The fix as one text edit, exactly as applying it rewrites the file (indentation,
    comments and all): the region where the file before and after the fix differ."""
    if not report.replacements:
        return ()
    module = context.module
    # The position pass generated the whole code when a report carries a fix (check_module).
    before = context.positions.code
    if before is None:
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
    positions = context.positions
    start = positions.location(prefix)
    end = positions.location(len(before) - suffix, end=True)
    return (
        Edit(
            after[prefix : len(after) - suffix],
            Location(start.line, start.column + 1),
            Location(end.line, end.column + 1),
        ),
    )


def _reported_nodes(reports: Sequence[Report]) -> Iterator[cst.CSTNode]:
    for report in reports:
        yield report.node
        if report.statement is not None:
            yield report.statement
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
        _text_edit(context, report),
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
        confidence=item.report.confidence,
        severity=rule.severity,
    )


def physical_lines(text: str) -> list[str]:
    """The lines of ``text`` as the tokenizer counts them (only CR, LF and CRLF end a line)."""
    return NEWLINE.split(text)


def check_text(
    text: str,
    path: str,
    rules: Sequence[EnabledRule],
    options: AnalysisOptions = (),
    cpython: CPythonParse | None = None,
    tree: cst.Module | None = None,
) -> list[Finding]:
    """Parse ``text`` and check it: the findings, a syntax error, or internal errors.
    ``cpython``: what CPython made of ``text``, when the caller knows; ``tree``: libcst's tree
    of ``text`` when one exists already (it is not parsed again)."""
    try:
        module = tree if tree is not None else parse(text, path, cpython)
    except ParseFailure as failure:
        return [failure.finding]
    result = check_module(module, text, path, rules, options)
    lines = physical_lines(text)
    return [to_finding(item, path, lines) for item in result.reports] + result.errors

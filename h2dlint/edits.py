"""Fixes as edits: replacing nodes by identity (the one way fixes are applied) and the text edit
a fix makes, as a finding carries it."""

from __future__ import annotations

from typing import Any

import libcst as cst

from h2dlint.context import FileContext
from h2dlint.diagnostics import Edit, Location
from h2dlint.rule import Replacement, Report
from h2dlint.walk import visit_read_only


class ReplaceNodes(cst.CSTTransformer):
    """Replaces nodes by identity: the one way fixes are applied. Given ``paths`` (the nodes
    that hold a replaced node, see :func:`replace_nodes`), it enters only them: every other
    subtree is kept as it is, which is what rebuilding it would give."""

    def __init__(
        self,
        replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]],
        paths: set[cst.CSTNode] | None = None,
    ) -> None:
        super().__init__()
        self.replacements = replacements
        self.paths = paths

    def on_visit(self, node: cst.CSTNode) -> bool:
        return self.paths is None or node in self.paths

    def on_leave(  # type: ignore[override]  # a replacement may be of another node type
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        return self.replacements.get(original_node, updated_node)


class _Paths(cst.CSTVisitor):
    """The nodes that hold one of ``targets`` (the targets themselves included)."""

    def __init__(self, targets: set[cst.CSTNode]) -> None:
        super().__init__()
        self.targets = targets
        self.found: set[cst.CSTNode] = set()
        self.paths: set[cst.CSTNode] = set()
        self.stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        if node in self.targets:
            self.found.add(node)
            self.paths.update(self.stack)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


def replace_nodes(
    module: cst.Module,
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]],
) -> cst.Module:
    """``module`` with ``replacements`` made: the same tree as a transformer visiting every
    node gives, rebuilt only along the paths to the replaced nodes (a fix of one line of a
    large module no longer rebuilds all of it). Where the walk does not find every replaced
    node (it skips whitespace and punctuation), every node is visited, as before."""
    finder = _Paths(set(replacements))
    visit_read_only(module, finder)
    paths = finder.paths if len(finder.found) == len(replacements) else None
    return module.visit(ReplaceNodes(replacements, paths))


def text_edit(context: FileContext, report: Report) -> tuple[Edit, ...]:
    """The fix as one text edit, exactly as applying it rewrites the file (indentation,
    comments and all): the region where the file before and after the fix differ."""
    if not report.replacements:
        return ()
    module = context.module
    # The position pass generated the whole code when a report carries a fix that may not be
    # spliced (dispatch.check_module); else it located the reports from the code of the
    # statements that hold them: offsets in the source, which is the module's code there.
    positions = context.positions
    before = positions.code
    spliced = None
    if before is None and not positions.skipped and "\x0c" not in context.source:
        spliced = _spliced(context, context.source, report.replacements)
        if spliced is not None:
            before = context.source
    if before is None:
        before = context.whole_positions().code
        if before is None:
            before = module.code
    if spliced is None:
        spliced = _spliced(context, before, report.replacements)
    if spliced is not None:
        # What the fixed module's code would be, without generating all of it: the same text
        # up to ``equal_head`` and from ``equal_tail`` characters before its end.
        after, equal_head, equal_tail = spliced
    else:
        after = replace_nodes(module, dict(report.replacements)).code
        equal_head = equal_tail = 0
    if after == before:
        return ()
    limit = min(len(before), len(after))
    prefix = min(equal_head, limit)
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    limit -= prefix
    suffix = min(equal_tail, limit)
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


def _spliced(
    context: FileContext, before: str, replacements: tuple[Replacement, ...]
) -> tuple[str, int, int] | None:
    """The module's code with its one replaced expression's code swapped for the new
    expression's (and how many characters at the head and at the tail stay as they were),
    when that is surely what generating the fixed module gives; None otherwise (the caller
    generates it). An expression's code depends on where it stands only through the
    indentation of its continuation lines (``ParenthesizedWhitespace``) and the module's
    newline: a new expression on one line, replacing one whose code in place is its code
    alone, has neither."""
    if len(replacements) != 1:
        return None
    old, new = replacements[0]
    if not isinstance(old, cst.BaseExpression) or not isinstance(new, cst.BaseExpression):
        return None
    span = context.positions.spans.get(old)
    if span is None:
        return None
    start, end = span
    module = context.module
    if before[start:end] != module.code_for_node(old):
        return None
    code = module.code_for_node(new)
    if "\n" in code or "\r" in code:
        return None
    return before[:start] + code + before[end:], start, len(before) - end

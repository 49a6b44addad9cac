"""Fixes as edits: replacing nodes by identity (the one way fixes are applied) and the text edit
a fix makes, as a finding carries it."""

from __future__ import annotations

from typing import Any

import libcst as cst

from h2dlint.context import FileContext
from h2dlint.diagnostics import Edit, Location
from h2dlint.rule import Report


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


def text_edit(context: FileContext, report: Report) -> tuple[Edit, ...]:
    """The fix as one text edit, exactly as applying it rewrites the file (indentation,
    comments and all): the region where the file before and after the fix differ."""
    if not report.replacements:
        return ()
    module = context.module
    # The position pass generated the whole code when a report carries a fix
    # (dispatch.check_module).
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

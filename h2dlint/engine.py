"""Checking one file's text: parse it with libcst, dispatch its nodes to the rules, turn the
reports into findings.

A file's check goes one way through the modules of this layer: ``parsing`` (CPython's and
libcst's trees, syntax findings), ``dispatch`` (one walk, every rule; reports located with their
fixes' ``edits``), ``fixer`` (with ``--fix``: apply, re-parse, re-check) and ``findings``
(reports as findings). The walk itself is ``walk.py``'s, which analyses share.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.diagnostics import Finding
from h2dlint.dispatch import check_module
from h2dlint.findings import physical_lines, to_finding
from h2dlint.jobs import AnalysisOptions, EnabledRule
from h2dlint.parsing import CPythonParse, ParseFailure, parse

__all__ = ["EnabledRule", "check_text"]


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
    python_tree = cpython.tree if cpython is not None else None
    result = check_module(module, text, path, rules, options, python_tree)
    lines = physical_lines(text)
    return [to_finding(item, path, lines) for item in result.reports] + result.errors

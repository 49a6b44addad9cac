"""Parsing one file: CPython's ``ast`` (syntax errors, the candidate filter's tree) and libcst's
concrete tree (what rules visit), and the finding for a file either refuses.

The first step of a file's check, after decoding: ``pipeline`` parses with CPython, then
``engine.check_text`` or ``fixer.fix_text`` parse with libcst (:func:`parse`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from h2dlint.cst_parse import parse_valid_python
from h2dlint.diagnostics import IO_ERROR_CODE, SYNTAX_ERROR_CODE, Finding, file_finding
from h2dlint.source import python_ast


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
    CPython parses it to tell a syntax error from code libcst cannot read); when CPython
    accepted it, libcst's node validation is skipped (:func:`parse_valid_python`)."""
    try:
        if cpython is not None and cpython.tree is not None:
            return parse_valid_python(text)
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

"""Turning a file's bytes into text and back, exactly.

Python source is decoded as Python itself does (PEP 263 coding cookie, UTF-8 BOM, UTF-8 by default)
and encoded back the same way, so a fix changes nothing but what it means to change: the encoding,
the BOM and every line ending are kept.
"""

from __future__ import annotations

import ast
import codecs
import io
import re
import tokenize
import warnings
from dataclasses import dataclass

# A line ending as Python, libcst and editors count them.
NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """The bytes are not Python source text; ``row``/``column`` locate the problem (1-based)."""

    def __init__(self, message: str, row: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.row = row
        self.column = column


@dataclass(frozen=True)
class SourceText:
    text: str
    encoding: str
    bom: bool

    def encode(self, text: str) -> bytes:
        data = text.encode(self.encoding)
        return codecs.BOM_UTF8 + data if self.bom else data


_NEWLINE = re.compile(rb"\r\n|\r|\n")


def _row_column(data: bytes, offset: int, encoding: str = "utf-8") -> tuple[int, int]:
    """Where byte ``offset`` is, as every finding counts: rows end at CR, LF or CRLF, and the
    column counts the characters before it on its row (a BOM is not one)."""
    lines = _NEWLINE.split(data[:offset])
    prefix = lines[-1]
    if len(lines) == 1 and prefix.startswith(codecs.BOM_UTF8):
        prefix = prefix[len(codecs.BOM_UTF8) :]
    return len(lines), len(prefix.decode(encoding, errors="replace")) + 1


def decode(data: bytes) -> SourceText:
    """Decode ``data`` as Python source, or raise :class:`SourceError`."""
    nul = data.find(b"\x00")
    if nul != -1:
        row, column = _row_column(data, nul)
        raise SourceError("file is binary, not Python source (it contains a NUL byte)", row, column)
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if not exc.msg.startswith("invalid or missing encoding declaration"):
            raise SourceError(
                f"bad source encoding declaration: {exc.msg}", exc.lineno or 1
            ) from exc
        # A byte that is not UTF-8 in the first two lines, with no cookie: decode as UTF-8
        # below, which names the byte and where it is.
        encoding = "utf-8"
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(codecs.BOM_UTF8) if bom else 0)
        row, column = _row_column(data, offset, encoding)
        raise SourceError(
            f"file is not valid {encoding}: byte 0x{data[offset]:02x} cannot be decoded "
            "(declare the encoding with a PEP 263 coding comment or save the file as UTF-8)",
            row,
            column,
        ) from exc
    except LookupError as exc:
        raise SourceError(f"unknown source encoding {encoding!r}") from exc
    return SourceText(text, encoding, bom)


def python_ast(text: str) -> ast.Module:
    """``ast.parse(text)`` without the warnings CPython's compiler gives about the code (an
    invalid escape sequence, ``is`` with a literal): printed, they would name no file, they are
    not h2dlint's to report, and under ``-W error`` they would turn into syntax errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)

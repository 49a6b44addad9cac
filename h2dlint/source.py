"""Turning a file's bytes into text and back, exactly.

Python source is decoded as Python itself does (PEP 263 coding cookie, UTF-8 BOM, UTF-8 by default)
and encoded back the same way, so a fix changes nothing but what it means to change: the encoding,
the BOM and every line ending are kept.
"""

from __future__ import annotations

import codecs
import io
import tokenize
from dataclasses import dataclass


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


def _row_column(data: bytes, offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, offset) + 1
    line_start = data.rfind(b"\n", 0, offset) + 1
    return row, offset - line_start + 1


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
        raise SourceError(f"bad source encoding declaration: {exc.msg}", exc.lineno or 1) from exc
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(codecs.BOM_UTF8) if bom else 0)
        row, column = _row_column(data, offset)
        raise SourceError(
            f"file is not valid {encoding}: byte 0x{data[offset]:02x} cannot be decoded "
            "(declare the encoding with a PEP 263 coding comment or save the file as UTF-8)",
            row,
            column,
        ) from exc
    except LookupError as exc:
        raise SourceError(f"unknown source encoding {encoding!r}") from exc
    return SourceText(text, encoding, bom)

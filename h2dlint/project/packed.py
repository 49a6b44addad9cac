"""A file of JSON entries by key, each decoded only when first asked for.

The project index's summaries of a large tree take megabytes (transformers: 4 MB of summaries,
12 MB of lazy parts for 2,900 modules), and a run over a few files asks for a few dozen of
them: decoding all of them (millions of Python objects, at every start and in every worker that
asks for a lazy part) cost more than the summaries saved. So the file is one line of JSON, the
header (``format``, ``build`` and, by key, ``[stamp, start, end]``: where the entry's own JSON
text lies in the bytes after that line), then the entries' texts one after the other. Reading
it decodes the header; an entry is decoded when asked for, and one that does not decode to a
JSON object (a damaged or truncated file) counts as absent. Writing takes each entry's text as
it is: an entry read and not changed is written back without being decoded.
"""

from __future__ import annotations

import json
from typing import Any

Entry = dict[str, Any]


class Packed:
    """The entries of one file (``index``: key -> (start, end) in ``body``)."""

    __slots__ = ("body", "index")

    def __init__(self, index: dict[str, tuple[int, int]], body: bytes) -> None:
        self.index = index
        self.body = body

    def __contains__(self, key: str) -> bool:
        return key in self.index

    def raw(self, key: str) -> bytes | None:
        """The entry's JSON text, as stored; None when there is none."""
        where = self.index.get(key)
        if where is None:
            return None
        start, end = where
        return self.body[start:end]

    def decode(self, key: str) -> Entry | None:
        """The entry, decoded; None when there is none or it does not decode to an object."""
        raw = self.raw(key)
        if raw is None:
            return None
        try:
            value = json.loads(raw)
        except ValueError:  # UnicodeDecodeError is one
            return None
        return value if isinstance(value, dict) else None


def read(data: bytes, format_: int, build: str) -> tuple[Packed, dict[str, int]] | None:
    """The entries of a file's ``data`` and each one's stamp; None when it is not such a file
    of this format and build."""
    end = data.find(b"\n")
    if end < 0:
        return None
    try:
        header = json.loads(data[:end])
        if header.get("format") != format_ or header.get("build") != build:
            return None
        entries = header["entries"]
    except (ValueError, AttributeError, KeyError, TypeError):
        return None
    if not isinstance(entries, dict):
        return None
    body = data[end + 1 :]
    index: dict[str, tuple[int, int]] = {}
    stamps: dict[str, int] = {}
    for key, where in entries.items():
        if (
            isinstance(where, list)
            and len(where) == 3
            and all(isinstance(number, int) for number in where)
            and 0 <= where[1] <= where[2] <= len(body)
        ):
            stamps[key] = where[0]
            index[key] = (where[1], where[2])
    return Packed(index, body), stamps


def encode(entry: Entry) -> bytes:
    """An entry's JSON text, as :func:`write` takes it."""
    return json.dumps(entry, separators=(",", ":")).encode()


def write(texts: dict[str, tuple[int, bytes]], format_: int, build: str) -> bytes:
    """The bytes of a file holding ``texts`` (key -> (stamp, the entry's JSON text))."""
    entries: dict[str, list[int]] = {}
    offset = 0
    for key, (stamp, text) in texts.items():
        entries[key] = [stamp, offset, offset + len(text)]
        offset += len(text)
    header = json.dumps(
        {"format": format_, "build": build, "entries": entries}, separators=(",", ":")
    )
    return b"".join([header.encode(), b"\n", *(text for _stamp, text in texts.values())])

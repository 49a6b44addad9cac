"""The result cache's file laid out one entry a line, read without decoding the entries.

On a large project the entries were most of the file (transformers: 90 MB for 2,911 files, most
of it the ``depends`` of each entry: the path and digest of every module its findings rest on),
and a run over a few files (a pre-commit hook) needs a few of them: decoding the whole file cost
0.55 s of CPU before the run could fork its workers, and encoding it again 1.0 s at its end. The
file is one JSON document, laid out so that it need not be decoded whole::

    {"format":4,"rules":...,"files":{...},"modules":[[path,digest],...],"entries":{
    "<key>":{"used":<int>,"findings":[...],"depends":[<position in modules>,...]},
    "<key>":{"used":<int>,...}
    }}

(``json.dumps`` escapes every line break inside a string, so each line holds one entry). Each
module an entry depends on is named once, in ``modules``, and the entries give its position.
:func:`read` takes the header apart and finds each entry's key, its ``used`` stamp and where its
bytes are, decoding nothing else; :class:`Entries` decodes an entry when it is first asked for,
and :func:`write` lays out the entries not asked for as the bytes they were read as. A file not
laid out this way (rewritten by another tool, one line) is decoded whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_HEAD_END = b',"entries":{'
# An entry's line: its key (a digest: hex), its `used` stamp first, the entry's JSON after the key.
_LINE = re.compile(rb'"([0-9a-f]+)":(\{"used":(-?[0-9]+)[,}])')
_TAIL = b"}}"
# The modules' table is built again from the entries' own when it names this many more modules
# than there are entries (modules of entries dropped since, digests edited away).
MAX_STALE_MODULES = 50_000


class Entries:
    """The cache's entries by key; those read from a laid-out file are decoded on first access.
    An entry that does not decode to a dict with an int ``used`` counts as absent. In the file
    an entry's ``depends`` are positions in the document's ``modules`` (``table``: each a
    module's path and digest, written once, not once per entry); here they are the pairs."""

    def __init__(
        self,
        data: bytes = b"",
        raw: dict[str, tuple[int, int, int]] | None = None,
        table: list[Any] | None = None,
    ) -> None:
        self._decoded: dict[str, dict[str, Any]] = {}
        self._data = data
        # Not decoded yet: where each entry's bytes start and end, and its `used` stamp.
        self._raw: dict[str, tuple[int, int, int]] = raw if raw is not None else {}
        self.table: list[Any] = table if table is not None else []

    @classmethod
    def decoded(cls, entries: dict[str, Any], table: list[Any]) -> Entries:
        """The entries of a document decoded whole; those of the wrong shape left out."""
        made = cls(table=table)
        for key, stored in entries.items():
            entry = made._valid(stored)
            if entry is not None:
                made._decoded[key] = entry
        return made

    def _valid(self, entry: Any) -> dict[str, Any] | None:
        if not isinstance(entry, dict) or not isinstance(entry.get("used", 0), int):
            return None
        depends = entry.get("depends")
        if depends is not None:
            table = self.table
            if not isinstance(depends, list) or not all(
                type(at) is int and 0 <= at < len(table) for at in depends
            ):
                return None
            entry["depends"] = [table[at] for at in depends]
        return entry

    def _decode(self, key: str) -> dict[str, Any] | None:
        start, end, _used = self._raw.pop(key)
        try:
            entry = self._valid(json.loads(self._data[start:end]))
        except ValueError:
            return None
        if entry is not None:
            self._decoded[key] = entry
        return entry

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry of ``key``; None where there is none, or it does not decode."""
        entry = self._decoded.get(key)
        if entry is None and key in self._raw:
            entry = self._decode(key)
        return entry

    def __getitem__(self, key: str) -> dict[str, Any]:
        entry = self.get(key)
        if entry is None:
            raise KeyError(key)
        return entry

    def values(self) -> list[dict[str, Any]]:
        """Every entry that decodes."""
        return [entry for key in self if (entry := self.get(key)) is not None]

    def __setitem__(self, key: str, entry: dict[str, Any]) -> None:
        self._raw.pop(key, None)
        self._decoded[key] = entry

    def __delitem__(self, key: str) -> None:
        if self._raw.pop(key, None) is None:
            del self._decoded[key]
        else:
            self._decoded.pop(key, None)

    def __iter__(self) -> Iterator[str]:
        return iter([*self._decoded, *self._raw])

    def __len__(self) -> int:
        return len(self._decoded) + len(self._raw)

    def __contains__(self, key: object) -> bool:
        return key in self._decoded or key in self._raw

    def used(self, key: str) -> int:
        """When the entry was last used, without decoding it."""
        raw = self._raw.get(key)
        if raw is not None:
            return raw[2]
        stamp = self._decoded[key].get("used", 0)
        return stamp if isinstance(stamp, int) else 0

    def undecoded(self, key: str) -> bytes | None:
        """The entry's bytes as read, where it was not decoded."""
        raw = self._raw.get(key)
        return self._data[raw[0] : raw[1]] if raw is not None else None


def read(data: bytes) -> tuple[dict[str, Any], Entries] | None:
    """The header (the document without its entries) and the entries of a laid-out file; None
    when ``data`` is not laid out as :func:`write` lays it out (decode it whole then)."""
    first = data.find(b"\n")
    if first < 0 or not data.startswith(b"{") or not data[:first].endswith(_HEAD_END):
        return None
    try:
        header = json.loads(data[: first - len(_HEAD_END)] + b"}")
    except ValueError:
        return None
    if not isinstance(header, dict) or not isinstance(header.get("modules", []), list):
        return None
    raw: dict[str, tuple[int, int, int]] = {}
    start, size = first + 1, len(data)
    while True:
        end = data.find(b"\n", start)
        if end < 0:
            return None  # cut short: no closing line
        if end == start + len(_TAIL) and data.startswith(_TAIL, start):
            if end + 1 != size:
                return None
            return header, Entries(data, raw, header.pop("modules", []))
        line_end = end - 1 if data[end - 1 : end] == b"," else end
        found = _LINE.match(data, start, line_end)
        if found is None or data[line_end - 1 : line_end] != b"}":
            return None
        raw[found.group(1).decode()] = (found.start(2), line_end, int(found.group(3)))
        start = end + 1


def write(header: dict[str, Any], entries: Entries, keys: list[str]) -> bytes:
    """The document ``header`` with ``entries``' ``keys``, laid out for :func:`read`, their
    ``depends`` as positions in its ``modules``. The modules of the entries written as read
    keep their positions (the stored table, extended); where every entry was decoded, the
    table holds only what they name, and so it does when the stored one has grown past
    :data:`MAX_STALE_MODULES` more than the entries (each is decoded then: an entry that does
    not decode is left out). Keys not of hex digits, or entries whose ``used`` does not come
    first, still make valid JSON; :func:`read` then declines the file, decoded whole."""
    kept = any(entries.undecoded(key) is not None for key in keys)
    if kept and len(entries.table) > len(keys) + MAX_STALE_MODULES:
        for key in keys:
            entries.get(key)  # decoded: the table is then built from what they name
        kept = False
    table: list[Any] = list(entries.table) if kept else []
    at: dict[tuple[str, str] | str, int] | None = None
    lines = [b""]
    for key in keys:
        encoded = entries.undecoded(key)
        if encoded is None:
            entry = entries.get(key)
            if entry is None:
                continue
            depends = entry.get("depends")
            if depends:
                if at is None:
                    at = {_pair(pair): n for n, pair in enumerate(table)}
                positions = []
                for pair in depends:
                    position = at.setdefault(_pair(pair), len(table))
                    if position == len(table):
                        table.append(pair)
                    positions.append(position)
                entry = {**entry, "depends": positions}
            encoded = json.dumps(entry, separators=(",", ":")).encode()
        lines.append(json.dumps(key).encode() + b":" + encoded + b",")
    if len(lines) > 1:
        lines[-1] = lines[-1][:-1]
    head = json.dumps({**header, "modules": table}, separators=(",", ":")).encode()
    lines[0] = head[:-1] + _HEAD_END
    lines.append(_TAIL)
    lines.append(b"")
    return b"\n".join(lines)


def _pair(pair: Any) -> tuple[str, str] | str:
    """A key for a module's pair (a path and a digest, as :meth:`ResultCache.put` makes them;
    anything else read from a file by its JSON)."""
    if type(pair) is list and len(pair) == 2 and type(pair[0]) is str and type(pair[1]) is str:
        return pair[0], pair[1]
    return json.dumps(pair, separators=(",", ":"))

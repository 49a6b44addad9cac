"""A file of JSON values by key and part name, each decoded only when first asked for.

The project index's summaries of a large tree take megabytes (transformers: 4 MB of summaries,
12 MB of lazy parts for 2,900 modules), and a run over a few files asks for a few parts of
each module (the names it defines, the names it calls) and for more of a few dozen: decoding
all of them (millions of Python objects, at every start and in every worker that asks for a
lazy part) cost more than the summaries saved. So the file is one line of JSON, the header
(``format``, ``build`` and, by key, ``[stamp, start, name, end, name, end, ...]``: the bytes
after that line from ``start`` hold each part's JSON text up to its ``end``), then the parts'
texts one after the other. Reading it decodes the header; a part is decoded when asked for,
and one that does not decode (a damaged or truncated file) counts as absent. Writing takes
each part's text as it is: a part read and not changed is written back without being decoded.

The header also says how many bytes of parts follow it (``size``). A run that only adds new
keys (a pre-commit run's edited files) appends a segment to the file instead of writing it
again (17 MB for transformers): a header of its own (``size`` and ``check``, a digest of its
parts' bytes) and its parts. Reading joins the segments' keys, the later one winning; a segment
that is cut short, damaged or of another format or build ends the file there (its keys and
those after it count as absent: they are computed again, never misread).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any

# Parts laid out for :func:`write`: each part's name with where its text ends in the bytes,
# and the bytes (the parts' texts one after the other).
Laid = tuple[list[tuple[str, int]], bytes]

# The scanner of a decoder with the default settings, as ``json.loads`` decodes with.
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


class Packed:
    """The parts of one file (``index``: key -> the header's list for it), whose texts lie in
    ``data`` from ``base`` on (the file's bytes, the header line included: not copied)."""

    __slots__ = ("_where", "base", "data", "index", "segments", "size")

    def __init__(
        self, index: dict[str, list[Any]], data: bytes, base: int = 0, segments: int = 1
    ) -> None:
        self.index = index
        self.data = data
        self.base = base
        self.size = len(data) - base
        # The segments read (the first one and those appended to it, :func:`segment`).
        self.segments = segments
        self._where: dict[str, dict[str, tuple[int, int]]] = {}

    def __contains__(self, key: str) -> bool:
        return key in self.index

    def stamp(self, key: str) -> int | None:
        found = self.index.get(key)
        return found[0] if found is not None and type(found[0]) is int else None

    def where(self, key: str) -> dict[str, tuple[int, int]]:
        """Part name -> (start, end) after ``base``, for ``key``; empty where the header's
        list for it is not well formed."""
        found = self._where.get(key)
        if found is None:
            found = self._where[key] = _where(self.index.get(key), self.size)
        return found

    def raw(self, key: str, name: str) -> bytes | None:
        """The part's JSON text, as stored; None when there is none, or its offsets are not
        well formed (those of the key's other parts are not looked at)."""
        entry = self.index.get(key)
        if entry is None:
            return None
        try:
            at = entry.index(name, 2)
        except ValueError:
            return None
        if at % 2 or at + 1 >= len(entry):
            return None
        start, end = entry[at - 1] if at > 2 else entry[1], entry[at + 1]
        if type(start) is not int or type(end) is not int or not 0 <= start <= end <= self.size:
            return None
        return self.data[self.base + start : self.base + end]

    def decode(self, key: str, name: str) -> tuple[Any] | None:
        """The part, decoded, in a 1-tuple (a part may be None); None when there is none or
        its text does not decode."""
        raw = self.raw(key, name)
        if raw is None:
            return None
        try:
            return (json.loads(raw),)
        except ValueError:  # UnicodeDecodeError is one
            return None

    def decode_many(self, keys: Iterable[str], name: str) -> dict[str, Any]:
        """Part ``name`` of each of ``keys`` that has it, decoded as :meth:`decode` decodes it,
        all in one pass: the parts' texts joined and decoded to text once, each part scanned
        where it lies (a project-wide table decodes one part of every module: ``json.loads``'
        own checks cost more than the scan of a short part). A part whose scan does not end
        exactly where its text ends (whitespace around it, a damaged text, a number that the
        next text would extend) is left out, as are all of them when the texts are not ASCII
        (``encode`` writes ASCII): :meth:`decode` judges those one by one."""
        found: list[tuple[str, int]] = []
        texts: list[bytes] = []
        for key in keys:
            raw = self.raw(key, name)
            if raw is not None:
                texts.append(raw)
                found.append((key, len(raw)))
        try:
            joined = b"".join(texts).decode("ascii")
        except UnicodeDecodeError:
            return {}
        scan = _SCAN
        decoded: dict[str, Any] = {}
        start = 0
        for key, size in found:
            try:
                value, stop = scan(joined, start)
            except (StopIteration, ValueError):
                stop = -1
            start += size
            if stop == start:
                decoded[key] = value
        return decoded

    def texts(self, key: str) -> dict[str, bytes]:
        """Every part of ``key``, as stored."""
        data, base = self.data, self.base
        return {
            name: data[base + start : base + end] for name, (start, end) in self.where(key).items()
        }

    def laid(self, key: str) -> Laid:
        """Every part of ``key`` as stored, laid out for :func:`write` in one piece."""
        where = self.where(key)
        if not where:
            return [], b""
        first = next(iter(where.values()))[0]
        ends = [(name, end - first) for name, (_start, end) in where.items()]
        return ends, self.data[self.base + first : self.base + first + ends[-1][1]]


def _where(entry: list[Any] | None, size: int) -> dict[str, tuple[int, int]]:
    if entry is None or len(entry) < 2 or len(entry) % 2:
        return {}
    found: dict[str, tuple[int, int]] = {}
    start = entry[1]
    for at in range(2, len(entry), 2):
        name, end = entry[at], entry[at + 1]
        if not (isinstance(name, str) and type(start) is int and type(end) is int):
            return {}
        if not 0 <= start <= end <= size:
            return {}
        found[name] = (start, end)
        start = end
    return found


def read(data: bytes, format_: int, build: str) -> Packed | None:
    """The parts in a file's ``data``; None when it is not such a file of this format and
    build. The segments appended after the first (:func:`segment`) are read up to the first
    that is cut short, damaged or of another format or build."""
    header, base = _header(data, 0, format_, build)
    if header is None:
        return None
    entries, size = header["entries"], header["size"]
    index = {key: entry for key, entry in entries.items() if isinstance(entry, list) and entry}
    # A first segment cut short keeps what it holds (a part running past counts as absent).
    at, segments = (base + size if size <= len(data) - base else len(data)), 1
    while at < len(data):
        header, start = _header(data, at, format_, build)
        if header is None or not isinstance(check := header.get("check"), str):
            break
        at = start + header["size"]
        if _check(data[start:at]) != check:
            break
        segments += 1
        for key, entry in header["entries"].items():
            shifted = _shifted(entry, start - base, header["size"])
            if shifted is not None:
                index[key] = shifted
    return Packed(index, data, base, segments)


def _header(data: bytes, at: int, format_: int, build: str) -> tuple[Any, int]:
    """The header of the segment at ``at`` (its ``entries`` a dict, its ``size`` within the
    data) and where its parts start; (None, 0) when there is none such."""
    end = data.find(b"\n", at)
    if end < 0:
        return None, 0
    try:
        header = json.loads(data[at:end])
        if header.get("format") != format_ or header.get("build") != build:
            return None, 0
        size = header.get("size")
        if not isinstance(header["entries"], dict) or type(size) is not int or size < 0:
            return None, 0
    except (ValueError, AttributeError, KeyError, TypeError):
        return None, 0
    if at and size > len(data) - end - 1:  # an appended segment cut short
        return None, 0
    return header, end + 1


def _shifted(entry: Any, shift: int, size: int) -> list[Any] | None:
    """An appended segment's header list with its offsets made relative to the first
    segment's parts (``shift`` bytes before its own); None unless well formed within the
    segment's ``size`` bytes."""
    if not isinstance(entry, list) or len(entry) < 2 or len(entry) % 2:
        return None
    offsets = entry[1::2]
    if not all(type(offset) is int and 0 <= offset <= size for offset in offsets):
        return None
    shifted = entry[:]
    shifted[1::2] = [offset + shift for offset in offsets]
    return shifted


def _check(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def encode(value: Any) -> bytes:
    """A part's JSON text, as :func:`write` takes it."""
    return json.dumps(value, separators=(",", ":")).encode()


def lay(texts: dict[str, bytes]) -> Laid:
    """Parts (name -> JSON text) laid out for :func:`write`."""
    ends = []
    offset = 0
    for name, text in texts.items():
        offset += len(text)
        ends.append((name, offset))
    return ends, b"".join(texts.values())


def write(laid: dict[str, tuple[int, Laid]], format_: int, build: str) -> bytes:
    """The bytes of a file holding the parts ``laid`` (key -> (stamp, its parts))."""
    entries, data = _laid_out(laid)
    return _joined({"format": format_, "build": build, "size": len(data)}, entries, data)


def segment(laid: dict[str, tuple[int, Laid]], format_: int, build: str) -> bytes:
    """The bytes to append to a file of this format and build for it to hold the parts
    ``laid`` too (:func:`read`): the file's own parts are neither read nor written again."""
    entries, data = _laid_out(laid)
    header = {"format": format_, "build": build, "size": len(data), "check": _check(data)}
    return _joined(header, entries, data)


def _laid_out(laid: dict[str, tuple[int, Laid]]) -> tuple[dict[str, list[Any]], bytes]:
    entries: dict[str, list[Any]] = {}
    chunks: list[bytes] = []
    offset = 0
    for key, (stamp, (ends, blob)) in laid.items():
        entry: list[Any] = [stamp, offset]
        for name, end in ends:
            entry += (name, offset + end)
        entries[key] = entry
        chunks.append(blob)
        offset += len(blob)
    return entries, b"".join(chunks)


def _joined(header: dict[str, Any], entries: dict[str, list[Any]], data: bytes) -> bytes:
    header["entries"] = entries
    return b"".join([json.dumps(header, separators=(",", ":")).encode(), b"\n", data])


def appended(before: Packed, stamps: dict[str, int], changed: set[str]) -> list[str] | None:
    """When a file to write holds every key of ``before`` with the stamp stored there, in the
    same order and first (``stamps``: key -> stamp, in the order they are written), and none of
    them ``changed``: the keys after them, whose parts alone need laying out (appended to the
    stored file as a :func:`segment`); else None."""
    keys = iter(stamps.items())
    for key, entry in before.index.items():
        found = next(keys, None)
        if found is None or found[0] != key or found[1] != entry[0] or key in changed:
            return None
    return [key for key, _stamp in keys]

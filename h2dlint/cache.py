"""The result cache: findings per file content, h2dlint build and effective settings.

One JSON file holds every entry, keyed by a hash of those three things, so a file's entry is
found again wherever the file lives and whatever its timestamp. Beside the entries it records each
file's status (size, times, inode) with the digest of its content, so that a warm run reads only
the files whose status changed. The file is read once at the start
of a run and written once at the end, atomically. A cache that cannot be read or written is
warned about and then ignored: it never fails a run.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import h2dlint
from h2dlint import results_layout
from h2dlint.diagnostics import Finding
from h2dlint.digest import content_digest
from h2dlint.project import packed
from h2dlint.project.packed import Laid, Packed
from h2dlint.project.summary import LAZY_PARTS, SUMMARY_FORMAT, SummaryStore

CACHE_FORMAT = 4
# Entries not used for this long are dropped when the cache is written.
MAX_AGE_S = 30 * 24 * 3600
MAX_ENTRIES = 200_000
# Segments appended to a summaries file (``packed.segment``) before it is written whole again.
MAX_SEGMENTS = 16


@cache
def build_fingerprint() -> str:
    """Identifies this h2dlint build by its version and the content of its modules: an edited
    rule in a development checkout never serves stale results, and two installs of the same
    release share entries."""
    digest = hashlib.blake2b(h2dlint.__version__.encode(), digest_size=16)
    roots = [Path(h2dlint.__file__).parent]
    try:
        from h2dlint.registry import rules_package

        roots += [Path(p) for p in rules_package().__path__]
    except ImportError:  # pragma: no cover
        pass
    for path in _module_files(roots):
        try:
            with open(path, "rb") as file:
                digest.update(file.read())
        except OSError:
            continue
    return digest.hexdigest()


def _module_files(roots: Sequence[Path]) -> list[str]:
    """The ``.py`` files under ``roots`` (real paths, each once, sorted). ``os.walk`` of the
    real roots, without following links, as ``Path.rglob`` went and about a tenth of its cost
    (a path object and a ``resolve`` per file were most of a warm run's fingerprint)."""
    found: set[str] = set()
    for root in {os.path.realpath(root) for root in roots}:
        for directory, _folders, names in os.walk(root):
            found.update(os.path.join(directory, n) for n in names if n.endswith(".py"))
    return sorted(found)


def entry_key(digest: str, settings_fingerprint: str, path: str) -> str:
    """The key of the findings for content ``digest`` of the file at ``path`` under these
    settings, by this build. The path counts: the same text elsewhere (a copy, another version
    of the package) belongs to another package, whose callers may make it hot or cold."""
    key = hashlib.blake2b(digest_size=20)
    key.update(build_fingerprint().encode())
    key.update(settings_fingerprint.encode())
    key.update(digest.encode())
    key.update(path.encode("utf-8", "surrogateescape"))
    return key.hexdigest()


# A file whose status changed this recently is never answered from its status: a write within
# the same timestamp tick as the one we saw would leave size and times as they were.
RACY_WINDOW_NS = 2_000_000_000


class ResultCache:
    """Findings by content and settings (``entries``), the content digest of each file by its
    status (``files``: a file whose size, times and inode are unchanged is not read again), and
    the rule catalogue of the build that wrote it (``rules``, see catalogue.py)."""

    def __init__(self, directory: Path, warn: Callable[[str], None]) -> None:
        self.directory = directory
        self.file = directory / f"results-v{CACHE_FORMAT}.json"
        self.warn = warn
        self.entries = results_layout.Entries()
        self.files: dict[str, list[Any]] = {}
        self.rules: Any = None
        self.dirty = False
        self.now = int(time.time())
        # Digests of dependency modules read during this run.
        self._seen_digests: dict[str, str | None] = {}
        self._racy_after = time.time_ns() - RACY_WINDOW_NS
        self._load()

    def _load(self) -> None:
        try:
            raw = self.file.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.warn(f"cache {self.file} cannot be read ({exc.strerror}); running without it")
            return
        try:
            laid = results_layout.read(raw)
            if laid is not None:  # the entries decoded when asked for
                data, self.entries = laid
            else:
                data = json.loads(raw)
                if data.get("format") != CACHE_FORMAT or not isinstance(data.get("entries"), dict):
                    raise ValueError("unexpected layout")
                # An entry of the wrong shape is dropped, so that no later step trips over it.
                table = data.get("modules", [])
                if not isinstance(table, list):
                    raise ValueError("unexpected layout")
                self.entries = results_layout.Entries.decoded(data["entries"], table)
                self.dirty = len(self.entries) != len(data["entries"])
            if data.get("format") != CACHE_FORMAT:
                raise ValueError("unexpected layout")
            files = data.get("files")
            if isinstance(files, dict):
                self.files = {
                    path: status
                    for path, status in files.items()
                    if isinstance(status, list) and len(status) == len(_STATUS_FIELDS) + 2
                }
            self.rules = data.get("rules")
        except (ValueError, AttributeError) as exc:  # UnicodeDecodeError is a ValueError
            self.warn(f"cache {self.file} is corrupt ({exc}); it will be rebuilt")
            self.entries, self.files, self.rules = results_layout.Entries(), {}, None
            self.dirty = True

    def get(self, key: str, path: str) -> list[Finding] | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        try:
            findings = [Finding.from_dict(path, item) for item in entry["findings"]]
        except (KeyError, TypeError, ValueError, AttributeError):
            del self.entries[key]
            self.dirty = True
            return None
        if not self._depends_hold(entry):
            return None
        if self.now - entry.get("used", 0) > 3600:
            entry["used"] = self.now
            self.dirty = True
        return findings

    def put(
        self, key: str, findings: Sequence[Finding], depends: Sequence[tuple[str, str]] = ()
    ) -> None:
        """Record ``findings`` under ``key``; ``depends``: the (path, digest) of each other
        module whose facts they rest on, so that an edit there makes the entry stale."""
        entry: dict[str, Any] = {"used": self.now, "findings": [f.to_dict() for f in findings]}
        if depends:
            entry["depends"] = [list(pair) for pair in depends]
        self.entries[key] = entry
        self.dirty = True

    def _depends_hold(self, entry: dict[str, Any]) -> bool:
        """Whether every module an entry's findings rest on still has the recorded content."""
        for pair in entry.get("depends", ()):
            if not (isinstance(pair, list) and len(pair) == 2):
                return False
            path, digest = pair
            if self._digest_now(path) != digest:
                return False
        return True

    def _digest_now(self, path: str) -> str | None:
        if path in self._seen_digests:
            return self._seen_digests[path]
        try:
            status = os.stat(path)
        except OSError:
            status = None
        digest = self.known_digest(path, status) if status is not None else None
        if digest is None and status is not None:
            try:
                with open(path, "rb") as handle:
                    digest = content_digest(handle.read())
            except OSError:
                digest = None
            if digest is not None:
                self.remember_digest(path, status, digest)
        self._seen_digests[path] = digest
        return digest

    def known_digest(self, path: str, status: os.stat_result) -> str | None:
        """The content digest of ``path`` when its status is the one recorded with it."""
        known = self.files.get(path)
        if known is None or known[: len(_STATUS_FIELDS)] != _status(status):
            return None
        digest = known[-2]
        if not isinstance(digest, str):
            return None
        used = known[-1]
        if not isinstance(used, int) or self.now - used > 3600:
            known[-1] = self.now
            self.dirty = True
        return digest

    def digest_by_status(self, path: str) -> str | None:
        """:meth:`known_digest` for ``path`` as it is now (None when it cannot be stat'ed)."""
        try:
            status = os.stat(path)
        except OSError:
            return None
        return self.known_digest(path, status)

    def remember_digest(self, path: str, status: os.stat_result, digest: str) -> None:
        """Record that ``path``, with ``status`` (taken before it was read), holds ``digest``;
        not for a file changed within the racy window."""
        if max(status.st_mtime_ns, status.st_ctime_ns) >= self._racy_after:
            return
        record = [*_status(status), digest, self.now]
        if self.files.get(path) != record:
            self.files[path] = record
            self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        entries = self.entries
        fresh = _recent({key: entries.used(key) for key in entries}, lambda used: used, self.now)
        files = _recent(self.files, lambda status: status[-1], self.now)
        header = {"format": CACHE_FORMAT, "rules": self.rules, "files": files}
        payload = results_layout.write(header, entries, list(fresh))
        try:
            write_in_cache_dir(self.directory, self.file.name, payload)
        except OSError as exc:
            self.warn(f"cache {self.directory} cannot be written ({exc.strerror}); skipped")
            return
        for old in range(1, CACHE_FORMAT):  # an earlier format's cache is dead weight
            with contextlib.suppress(OSError):
                (self.directory / f"results-v{old}.json").unlink(missing_ok=True)


class SummaryFile:
    """The project index's module summaries (``h2dlint/project/summary.py``) on disk, beside
    the results: by content digest, for this build (an edit to h2dlint drops them, as it does
    the results). Read when a run has files to check, written at its end when it computed new
    ones; an unreadable file is ignored (the summaries are computed again), never fatal. Each
    summary is decoded only when the run asks for it (``h2dlint/project/packed.py``)."""

    def __init__(self, directory: Path, warn: Callable[[str], None]) -> None:
        self.directory = directory
        self.file = directory / f"summaries-v{SUMMARY_FORMAT}.json"
        self.lazy_file = directory / f"summaries-v{SUMMARY_FORMAT}-lazy.json"
        self.warn = warn
        self.now = int(time.time())
        # digest -> when its summary was last written.
        self.stamps: dict[str, int] = {}

    def load(self) -> SummaryStore:
        """The stored summaries; their :data:`LAZY_PARTS` are read from a file of their own
        when a process first asks for one."""
        stored = self._read(self.file)
        if stored is None:
            return SummaryStore()
        self.stamps = {d: stamp for d in stored.index if (stamp := stored.stamp(d)) is not None}
        return SummaryStore(packed=stored, lazy=lambda: self._read(self.lazy_file))

    def _read(self, file: Path) -> Packed | None:
        """The parts in one of the two files; None when it is missing, unreadable or of
        another format or build."""
        try:
            data = file.read_bytes()
        except OSError:
            return None
        return packed.read(data, SUMMARY_FORMAT, build_fingerprint())

    def save(self, store: SummaryStore) -> None:
        """Write the store when this run computed new summaries: the lazy parts' file only
        when some of them are new (with those stored before, as stored)."""
        if not store.fresh:
            return
        lazy_fresh = any(LAZY_PARTS.intersection(parts) for parts in store.fresh.values())
        for digest in store.fresh:
            self.stamps[digest] = self.now
        stamps = _recent(self.stamps, lambda used: used, self.now)
        # Where the stored summaries are all kept, first, unchanged (a pre-commit run's
        # edited files are new digests), only the new ones are laid out and appended to the
        # stored file (``packed.segment``), up to MAX_SEGMENTS: then all are laid out again.
        before = store.stored_packed(lazy=False)
        new = None
        if before is not None and before.segments < MAX_SEGMENTS:
            new = packed.appended(before, stamps, set(store.fresh))
        kept: dict[str, tuple[int, Laid]] = {}
        for digest in stamps if new is None else new:
            laid = store.laid(digest, lazy=False)
            if laid is not None:
                kept[digest] = (stamps[digest], laid)
        self._write(self.file, kept, new is not None)
        if lazy_fresh:
            lazy_before = store.stored_packed(lazy=True)
            whole = (
                before is None
                or new is None
                or lazy_before is None
                or lazy_before.segments >= MAX_SEGMENTS
                or not lazy_before.index.keys() <= before.index.keys()
            )
            keys: Iterable[str] = kept
            if whole and new is not None and before is not None:
                keys = [*before.index, *kept]  # the stored ones were not laid out above
            lazy: dict[str, tuple[int, Laid]] = {}
            for digest in keys:
                laid = store.laid(digest, lazy=True)
                if laid is not None and laid[0]:
                    lazy[digest] = (0, laid)
            self._write(self.lazy_file, lazy, not whole)
        for old in range(1, SUMMARY_FORMAT):  # an earlier format's summaries are dead weight
            for name in (f"summaries-v{old}.json", f"summaries-v{old}-lazy.json"):
                with contextlib.suppress(OSError):
                    (self.directory / name).unlink(missing_ok=True)

    def _write(self, file: Path, laid: dict[str, tuple[int, Laid]], append: bool) -> None:
        """Write ``laid`` as the whole file, or append it to the stored one (``append``)."""
        try:
            if append:
                if laid:
                    append_to_file(file, packed.segment(laid, SUMMARY_FORMAT, build_fingerprint()))
                return
            payload = packed.write(laid, SUMMARY_FORMAT, build_fingerprint())
            write_in_cache_dir(self.directory, file.name, payload)
        except OSError as exc:
            self.warn(f"cache {self.directory} cannot be written ({exc.strerror}); skipped")


_STATUS_FIELDS = ("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino")


def _status(status: os.stat_result) -> list[int]:
    """The fields of :data:`_STATUS_FIELDS`, in that order (read directly: this runs for
    every module of the project before a run over a few files forks its workers)."""
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]


def _recent(items: dict[str, Any], used: Callable[[Any], Any], now: int) -> dict[str, Any]:
    """The items used within MAX_AGE_S, at most MAX_ENTRIES of them, the newest."""

    def age(item: Any) -> int:
        stamp = used(item)
        return now - stamp if isinstance(stamp, int) else MAX_AGE_S + 1

    fresh = {key: item for key, item in items.items() if age(item) <= MAX_AGE_S}
    if len(fresh) > MAX_ENTRIES:
        newest = sorted(fresh.items(), key=lambda kv: age(kv[1]))
        fresh = dict(newest[:MAX_ENTRIES])
    return fresh


def append_to_file(file: Path, payload: bytes) -> None:
    """Append ``payload`` to ``file`` (created if it is gone) in one write: two runs appending
    at once do not interleave their bytes. Raises OSError."""
    descriptor = os.open(file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(descriptor, payload)
    finally:
        os.close(descriptor)
    if written != len(payload):  # a segment cut short is ignored when read
        raise OSError(errno.ENOSPC, "the cache's disk is full")


def write_in_cache_dir(directory: Path, name: str, payload: str | bytes) -> None:
    """Write ``payload`` to ``directory/name`` atomically, creating the directory with a
    ``.gitignore`` that keeps it out of version control. Raises OSError."""
    directory.mkdir(parents=True, exist_ok=True)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by h2dlint automatically.\n*\n", encoding="utf-8")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload.encode() if isinstance(payload, str) else payload)
        os.replace(tmp, directory / name)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

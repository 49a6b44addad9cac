"""The result cache: findings per file content, h2dlint build and effective settings.

One JSON file holds every entry, keyed by a hash of those three things, so a file's entry is
found again wherever the file lives and whatever its timestamp. The file is read once at the start
of a run and written once at the end, atomically. A cache that cannot be read or written is
warned about and then ignored: it never fails a run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import h2dlint
from h2dlint.diagnostics import Finding

CACHE_FORMAT = 1
# Entries not used for this long are dropped when the cache is written.
MAX_AGE_S = 30 * 24 * 3600
MAX_ENTRIES = 200_000


@cache
def build_fingerprint() -> str:
    """Identifies this h2dlint build by its version and the content of its modules: an edited
    rule in a development checkout never serves stale results, and two installs of the same
    release share entries."""
    digest = hashlib.blake2b(h2dlint.__version__.encode(), digest_size=16)
    roots = [Path(h2dlint.__file__).parent]
    try:
        import h2dlint.rules as rules_package

        roots += [Path(p) for p in rules_package.__path__]
    except ImportError:  # pragma: no cover
        pass
    files = sorted({path.resolve() for root in roots for path in root.rglob("*.py")})
    for path in files:
        try:
            digest.update(path.read_bytes())
        except OSError:
            continue
    return digest.hexdigest()


def entry_key(content: bytes, settings_fingerprint: str) -> str:
    digest = hashlib.blake2b(digest_size=20)
    digest.update(build_fingerprint().encode())
    digest.update(settings_fingerprint.encode())
    digest.update(content)
    return digest.hexdigest()


class ResultCache:
    def __init__(self, directory: Path, warn: Any) -> None:
        self.directory = directory
        self.file = directory / f"results-v{CACHE_FORMAT}.json"
        self.warn = warn
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False
        self.now = int(time.time())
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
            data = json.loads(raw)
            if data.get("format") != CACHE_FORMAT or not isinstance(data.get("entries"), dict):
                raise ValueError("unexpected layout")
            # An entry of the wrong shape is dropped, so that no later step trips over it.
            self.entries = {
                key: entry
                for key, entry in data["entries"].items()
                if isinstance(entry, dict) and isinstance(entry.get("used", 0), int)
            }
            self.dirty = len(self.entries) != len(data["entries"])
        except (ValueError, AttributeError) as exc:  # UnicodeDecodeError is a ValueError
            self.warn(f"cache {self.file} is corrupt ({exc}); it will be rebuilt")
            self.entries = {}
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
        if self.now - entry.get("used", 0) > 3600:
            entry["used"] = self.now
            self.dirty = True
        return findings

    def put(self, key: str, findings: Sequence[Finding]) -> None:
        self.entries[key] = {"used": self.now, "findings": [f.to_dict() for f in findings]}
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        fresh = {
            key: entry
            for key, entry in self.entries.items()
            if self.now - entry.get("used", 0) <= MAX_AGE_S
        }
        if len(fresh) > MAX_ENTRIES:
            newest = sorted(fresh.items(), key=lambda kv: kv[1].get("used", 0), reverse=True)
            fresh = dict(newest[:MAX_ENTRIES])
        payload = json.dumps({"format": CACHE_FORMAT, "entries": fresh}, separators=(",", ":"))
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by h2dlint automatically.\n*\n", encoding="utf-8")
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".results-", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(payload)
                os.replace(tmp, self.file)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            self.warn(f"cache {self.directory} cannot be written ({exc.strerror}); skipped")

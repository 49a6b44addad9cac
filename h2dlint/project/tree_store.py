"""The libcst trees of the project's modules, kept on disk by content digest.

A check asks about names that other modules define (a buffer class, a helper's return, a
trainer's attribute), and the index parses those modules with libcst for their facts. In a
pre-commit run over a few files of a large tree, those parses cost more than the files
themselves: transformers' hub modules are 190-280 KB each. A libcst tree unpickles in about a
third of the time its text takes to parse (measured on this project's corpus, with the
collector paused as it is while a file is checked: ``modeling_utils.py``, 280 KB, parse
0.26-0.41 s, load 0.08-0.10 s; lightning's ``trainer.py``, 79 KB, 0.10 s against 0.04 s), so a
run that has a cache keeps each tree it parsed, and later runs load it.

The files are named by the digest of the module's bytes, in a folder named for the tree format,
the Python and libcst versions (a tree pickled by another libcst is not loaded). They are
written atomically (a temporary file, then a rename), only into the cache folder the run was
given. Unpickling runs code that the data names, and a cache folder can come with a checkout
(committed on purpose, or restored by CI from a pull request's run): so each file starts with
an HMAC-SHA256 of the rest, under a key that only this user can read (``tree-key`` in the
user's cache folder, made on first use with mode 0600), and a file whose MAC does not verify
is never unpickled; it is parsed again and replaced. Without a usable key no tree is kept.
Anything that does not unpickle to a libcst ``Module`` is ignored too. Trees not used for
``MAX_AGE_S`` are deleted, and the oldest beyond ``MAX_TREES``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import pickle
import secrets
import sys
import tempfile
import time
from pathlib import Path

import libcst as cst

TREE_FORMAT = 1
# Trees not loaded or written for this long are deleted when a run ends ...
MAX_AGE_S = 30 * 24 * 3600
# ... and the least recently used beyond this many (a tree takes 5-6 times its text on disk).
MAX_TREES = 4096
# A loaded tree's time of use is refreshed at most this often (one system call per load).
TOUCH_AFTER_S = 24 * 3600


MAC_BYTES = 32


def user_key_file() -> Path:
    """Where this user's key for the trees is: ``$XDG_CACHE_HOME/h2dlint/tree-key``, else
    ``~/.cache/h2dlint/tree-key`` (outside any checkout)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "h2dlint" / "tree-key"


def _user_key() -> bytes | None:
    """The user's key (made now if there is none); None when it cannot be read or made."""
    path = user_key_file()
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = b""
    except OSError:
        return None
    if len(key) >= MAC_BYTES:
        return key
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it meanwhile
        with contextlib.suppress(OSError):
            key = path.read_bytes()
        return key if len(key) >= MAC_BYTES else None
    except OSError:
        return None
    key = secrets.token_bytes(MAC_BYTES)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


def _mac(key: bytes, payload: bytes | memoryview) -> bytes:
    return hmac.new(key, payload, hashlib.sha256).digest()


def _folder_name() -> str:
    from libcst._version import __version__ as libcst_version

    python = f"{sys.version_info[0]}{sys.version_info[1]}"
    return f"trees-v{TREE_FORMAT}-py{python}-libcst{libcst_version}"


class TreeStore:
    """Pickled libcst trees under ``directory``, one file per module content."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / _folder_name()
        self._key: bytes | None = None
        self._keyed = False
        # Digests whose file was there but did not verify: replaced when saved.
        self._rejected: set[str] = set()

    def _mac_key(self) -> bytes | None:
        if not self._keyed:
            self._key, self._keyed = _user_key(), True
        return self._key

    def _file(self, digest: str) -> Path:
        return self.directory / f"{digest}.pickle"

    def load(self, digest: str) -> cst.Module | None:
        """The tree of the module whose bytes have ``digest``; None when none is kept or it
        cannot be read."""
        key = self._mac_key()
        if key is None:
            return None
        path = self._file(digest)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
                used = os.fstat(handle.fileno()).st_mtime
        except OSError:
            return None
        payload = memoryview(data)[MAC_BYTES:]
        if not hmac.compare_digest(data[:MAC_BYTES], _mac(key, payload)):
            self._rejected.add(digest)  # not written with this user's key: never unpickled
            return None
        try:
            tree = pickle.loads(payload)
        except Exception:  # a damaged file: parse the module instead
            self._rejected.add(digest)
            return None
        if not isinstance(tree, cst.Module):
            self._rejected.add(digest)
            return None
        if time.time() - used > TOUCH_AFTER_S:
            with contextlib.suppress(OSError):
                os.utime(path)
        return tree

    def save(self, digest: str, tree: cst.Module) -> None:
        """Keep ``tree`` (of the bytes with ``digest``) unless it is kept already (a file that
        did not verify is replaced); a tree too deep to pickle, or a folder that cannot be
        written, is skipped."""
        key = self._mac_key()
        if key is None:
            return
        path = self._file(digest)
        if digest not in self._rejected and path.exists():
            return  # another process kept it meanwhile
        try:
            payload = pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
        except (RecursionError, pickle.PicklingError, TypeError, AttributeError):
            return
        data = _mac(key, payload) + payload
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tree-", suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def prune(self, now: float | None = None) -> None:
        """Delete the trees not used for ``MAX_AGE_S``, then the oldest beyond ``MAX_TREES``,
        and temporary files a killed run left."""
        now = time.time() if now is None else now
        try:
            entries = list(os.scandir(self.directory))
        except OSError:
            return
        kept: list[tuple[float, str]] = []
        for entry in entries:
            try:
                used = entry.stat().st_mtime
            except OSError:
                continue
            stale_tmp = entry.name.endswith(".tmp") and now - used > 3600
            if stale_tmp or (entry.name.endswith(".pickle") and now - used > MAX_AGE_S):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
            elif entry.name.endswith(".pickle"):
                kept.append((used, entry.path))
        if len(kept) > MAX_TREES:
            kept.sort()
            for _used, path in kept[: len(kept) - MAX_TREES]:
                with contextlib.suppress(OSError):
                    os.unlink(path)

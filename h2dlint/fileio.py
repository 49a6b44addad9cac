"""Reading files and writing fixes back atomically.

A fix is written to a temporary file beside the original, flushed to disk, given the original's
permission bits, and renamed over it: a reader (or a crash, or Ctrl-C) sees either the old file
or the new one, never half of one. A file that changed since it was read is not overwritten.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path


class WriteError(Exception):
    """The fix could not be written; the original file is untouched."""


def read_bytes(path: str | Path) -> bytes:
    """The content of the regular file at ``path`` (through symlinks). Anything else raises
    OSError: reading a FIFO blocks forever, and a device such as /dev/zero never ends."""
    # O_NONBLOCK: opening a FIFO must not wait for a writer. It changes nothing for a file.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return handle.read()


def write_atomically(path: Path, data: bytes, expected: bytes) -> None:
    """Replace ``path``'s content with ``data`` if it still holds ``expected``."""
    target = Path(os.path.realpath(path))  # write through a symlink, keep the link
    try:
        info = target.stat()
        current = read_bytes(target)
    except FileNotFoundError as exc:
        raise WriteError("file was deleted before the fix could be written") from exc
    except OSError as exc:
        raise WriteError(f"cannot read it back before writing: {exc.strerror}") from exc
    if current != expected:
        raise WriteError("file changed on disk while it was being checked; not overwritten")
    writable = info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    # Renaming over the file would replace it even where the user may not write to it.
    if not writable or not os.access(target, os.W_OK):
        raise WriteError("file is read-only; not fixed")
    with _interrupts_deferred():
        _replace(target, data, info)


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C back while a fix is written: SIGINT between creating the temporary file and
    the ``try`` that removes it would leave it behind. Python runs signal handlers in the main
    thread only, so there a handler that notes the signal stands in for the usual one, and the
    interrupt is raised once the file is replaced. (Workers ignore SIGINT altogether.)"""
    # getsignal is None for a handler not installed from Python: it could not be put back.
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is None
    ):
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if not caught:
        return
    if callable(previous):
        previous(signal.SIGINT, None)  # Python's default: raises KeyboardInterrupt
    elif previous == signal.SIG_DFL:
        signal.raise_signal(signal.SIGINT)


def _replace(target: Path, data: bytes, info: os.stat_result) -> None:
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".h2dtmp")
    except OSError as exc:
        raise WriteError(f"cannot create a temporary file beside it: {exc.strerror}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(info.st_mode))
        with contextlib.suppress(OSError, AttributeError):
            os.chown(tmp, info.st_uid, info.st_gid)
        os.replace(tmp, target)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise WriteError(f"cannot write: {exc.strerror}") from exc
        raise

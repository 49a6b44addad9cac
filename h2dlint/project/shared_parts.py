"""Summary parts shared by the workers of one parallel run, through a private directory.

Each forked worker keeps its own :class:`~h2dlint.project.summary.SummaryStore`: a part one
worker computed (a module's call edges, what its calls pass, its syncing functions: an ``ast``
parse and a walk each) was computed again by every other worker that asked for it, 2-3 times
per part on lightning at 16 workers. A part is a function of the module's content alone (keyed
by its digest), so a worker about to compute one first looks for it in the run's directory,
and writes there what it computes (a pickle, renamed into place whole). Only the computing path
reads the directory: what a worker knows without computing (``SummaryStore.stored``) stays
what it computed or loaded itself, so no answer depends on how the files were shared out.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import tempfile
from typing import Any

# Where the directory is made: memory, where there is such a file system.
_MEMORY = "/dev/shm"
_PREFIX = "h2dlint-parts-"


class SharedParts:
    """The parts the run's processes computed, one file each (``DIGEST.PART``)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    @classmethod
    def create(cls) -> SharedParts | None:
        """A new private directory (mode 0700), named for this process; None when none can be
        made. The directories that runs killed before their cleanup left (their process gone)
        are removed first: memory is what they hold."""
        base = _MEMORY if os.path.isdir(_MEMORY) and os.access(_MEMORY, os.W_OK) else None
        with contextlib.suppress(OSError):
            _remove_orphans(base or tempfile.gettempdir())
        try:
            return cls(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=base))
        except OSError:
            return None

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)

    def get(self, digest: str, name: str) -> tuple[Any] | None:
        """The part another process wrote (in a 1-tuple: a part may be None), or None."""
        try:
            with open(os.path.join(self.directory, f"{digest}.{name}"), "rb") as handle:
                return (pickle.load(handle),)
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):
            return None

    def put(self, digest: str, name: str, value: Any) -> None:
        """Write a part this process computed (whole, or not at all)."""
        path = os.path.join(self.directory, f"{digest}.{name}")
        partial = f"{path}.{os.getpid()}"
        try:
            with open(partial, "wb") as handle:
                pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(partial, path)
        except (OSError, pickle.PicklingError):
            with contextlib.suppress(OSError):
                os.unlink(partial)


def _remove_orphans(base: str) -> None:
    """Remove this user's part directories under ``base`` whose run's process is gone."""
    for entry in os.scandir(base):
        pid = entry.name.removeprefix(_PREFIX).split("-", 1)[0]
        if not (entry.name.startswith(_PREFIX) and pid.isdigit() and entry.is_dir()):
            continue
        if entry.stat(follow_symlinks=False).st_uid == os.getuid() and not _alive(int(pid)):
            shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True

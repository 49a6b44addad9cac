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


class SharedParts:
    """The parts the run's processes computed, one file each (``DIGEST.PART``)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    @classmethod
    def create(cls) -> SharedParts | None:
        """A new private directory (mode 0700); None when none can be made."""
        base = _MEMORY if os.path.isdir(_MEMORY) and os.access(_MEMORY, os.W_OK) else None
        try:
            return cls(tempfile.mkdtemp(prefix="h2dlint-parts-", dir=base))
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

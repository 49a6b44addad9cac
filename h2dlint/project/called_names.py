"""The project's table of called names, built once for all the workers of a parallel run.

Who calls a function from another module is first asked of each module's ``calls`` summary
part (the names its text calls); after a few dozen questions a process builds one table of
every name each module calls (``CallerIndex.called_names``). Every worker of a whole-tree run
asks enough questions to build it, and without stored parts each of 16 workers would read and
scan the same 53 MB of transformers, about two seconds each. Here the main process reads the
modules whose parts are not stored, a short-lived pool of forked processes scans them in
slices, the parts join the summaries saved at the end of the run, and the table (the same lists,
in the same module order) is handed to the index before the run's workers are forked: they
inherit both.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from h2dlint.parent_death import end_with_parent
from h2dlint.project.index import ProjectIndex, current
from h2dlint.project.text_scan import called_text

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

# A worker given fewer files asks too few questions to build the table itself (a pre-commit
# run; lightning's 266 files on 16 cores): sharing it would only add the scan.
SHARE_FROM_FILES_PER_WORKER = 64
# Slices per process: small enough to even out modules of very different sizes.
SLICES_PER_PROCESS = 4
# Modules to scan below which the main process scans them itself: a pool costs more.
POOL_FROM_MODULES = 64


def share_called_names(index: ProjectIndex, processes: int, context: BaseContext) -> None:
    """Build the table of called names for ``index`` with ``processes`` forked processes.
    The ``calls`` parts stored by earlier runs are used as they are: only the modules whose
    content changed since are read and scanned."""
    callers = index.caller_index()
    missing = [module for module in index.layout.modules if not _stored(index, module)]
    if len(missing) >= POOL_FROM_MODULES:
        for module in missing:  # read here: the processes inherit the bytes
            callers.data(module)
        step = -(-len(missing) // (processes * SLICES_PER_PROCESS))
        slices = [missing[start : start + step] for start in range(0, len(missing), step)]
        with context.Pool(
            min(processes, len(slices)), initializer=end_with_parent, initargs=(os.getpid(),)
        ) as pool:
            parts = pool.map(_names_in, slices)
        for part in parts:
            for module, calls in part:
                callers.adopt_calls(module, calls)
    # The rest (stored, or too few to pool) are answered in this process, and the table is
    # built in module order, as each worker would have built it; the workers inherit it.
    callers.called_names()


def _stored(index: ProjectIndex, module: str) -> bool:
    digest = index.known_digest(index.layout.modules[module])
    return digest is not None and index.summaries.stored(digest, "calls") is not None


def _names_in(modules: list[str]) -> list[tuple[str, str]]:
    """In a forked process: each module of a slice, with the names it calls."""
    index = current()
    assert index is not None  # installed by the main process before the fork
    callers = index.caller_index()
    found = []
    for module in modules:
        data = callers.data(module)
        if data is not None:
            found.append((module, called_text(data)))
    return found

"""The project's table of called names, built once for all the workers of a parallel run.

Who calls a function from another module is first asked by a scan for that one name; after a
few dozen questions a process builds one table of every name each module calls
(``CallerIndex._called_names``): a regular-expression pass over the bytes of the whole project.
Every worker of a whole-tree run asks enough questions to build it, so on transformers each of
16 workers read and scanned the same 53 MB, about two seconds each. Here the main process reads
the project's bytes once, a short-lived pool of forked processes scans them in order-keeping
slices, and the merged table (the same lists, in the same module order) is handed to the
index before the run's workers are forked: they inherit both.
"""

from __future__ import annotations

from multiprocessing.context import BaseContext

from h2dlint.project.callers import called_in
from h2dlint.project.index import ProjectIndex, current

# A worker given fewer files asks too few questions to build the table itself (a pre-commit
# run; lightning's 266 files on 16 cores): sharing it would only add the scan.
SHARE_FROM_FILES_PER_WORKER = 64
# Slices per process: small enough to even out modules of very different sizes.
SLICES_PER_PROCESS = 4


def share_called_names(index: ProjectIndex, processes: int, context: BaseContext) -> None:
    """Build the table of called names for ``index`` with ``processes`` forked processes."""
    callers = index.caller_index()
    modules = list(callers.files())  # read here: the processes, then the workers, inherit them
    if not modules:
        return
    step = -(-len(modules) // (processes * SLICES_PER_PROCESS))
    slices = [(start, min(start + step, len(modules))) for start in range(0, len(modules), step)]
    with context.Pool(min(processes, len(slices))) as pool:
        parts = pool.map(_names_in, slices)
    table: dict[bytes, list[str]] = {}
    for part in parts:  # in module order, as one process would have built it
        for module, names in part:
            for name in names:
                table.setdefault(name, []).append(module)
    callers.adopt_called_names(table)


def _names_in(bounds: tuple[int, int]) -> list[tuple[str, list[bytes]]]:
    """In a forked process: each module of a slice of the project, with the names it calls."""
    index = current()
    assert index is not None  # installed by the main process before the fork
    files = index.caller_index().files()
    modules = list(files)[bounds[0] : bounds[1]]
    return [(module, list(called_in(files[module]))) for module in modules]

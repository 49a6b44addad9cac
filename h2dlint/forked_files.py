"""A parallel run with a process of its own for every file (as many workers as files: a
pre-commit run over a few files on a machine with more cores).

A process pool forks all of its workers, starts its threads and only then hands out the first
file, so the largest file, which decides when the run ends, waited for every fork before it
(transformers' ten pre-commit files: ten forks of the main process, 1.7 ms each here, and the
pool's imports and threads). Here each file's process is forked with its job already in hand,
the largest first, and starts at once; its result comes back pickled through a pipe of its own.
A process that dies without a result (a crash in native code, the out-of-memory killer) costs
its own file only: the file is checked once more in a fresh process, and reported as an internal
error if that one dies too, as the pool's path does (``runner._alone``).
"""

from __future__ import annotations

import os
import pickle
import selectors
from collections.abc import Callable, Sequence

from h2dlint.jobs import FileJob, FileResult


def check_each(
    jobs: Sequence[FileJob],
    work: Callable[[FileJob], FileResult],
    start: Callable[[int], None],
    died: Callable[[FileJob], FileResult],
) -> list[FileResult]:
    """``work(job)`` for each of ``jobs``, each in a process forked for it (in the order
    given), which first calls ``start`` with the main process's id; ``died(job)`` where that
    process died twice without a result. Results in the order of ``jobs``."""
    found = _forked(jobs, work, start)
    return [
        result if result is not None else _again(job, work, start, died)
        for job, result in zip(jobs, found, strict=True)
    ]


def _again(
    job: FileJob,
    work: Callable[[FileJob], FileResult],
    start: Callable[[int], None],
    died: Callable[[FileJob], FileResult],
) -> FileResult:
    result = _forked([job], work, start)[0]
    return result if result is not None else died(job)


def _forked(
    jobs: Sequence[FileJob], work: Callable[[FileJob], FileResult], start: Callable[[int], None]
) -> list[FileResult | None]:
    """Fork a process per job; each result read back (None where the process gave none). On
    Ctrl-C, every process is waited for (each ends its file checked, or fixed and written
    whole: they ignore it) before the interrupt goes on."""
    parent = os.getpid()
    pids: list[int] = []
    chunks: list[list[bytes]] = [[] for _ in jobs]
    with selectors.DefaultSelector() as selector:
        try:
            for at, job in enumerate(jobs):
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:  # pragma: no cover - the child; coverage does not follow forks
                    reads = [read, *(key.fd for key in selector.get_map().values())]
                    _child(job, work, start, parent, reads, write)
                os.close(write)
                pids.append(pid)
                selector.register(read, selectors.EVENT_READ, at)
            while selector.get_map():
                for key, _events in selector.select():
                    data = os.read(key.fd, 1 << 20)
                    if data:
                        chunks[key.data].append(data)
                    else:
                        selector.unregister(key.fd)
                        os.close(key.fd)
        finally:
            for key in list(selector.get_map().values()):  # interrupted: no more reading
                selector.unregister(key.fd)
                os.close(key.fd)
            statuses = [os.waitpid(pid, 0)[1] for pid in pids]
    results: list[FileResult | None] = [None] * len(jobs)
    for at, status in enumerate(statuses):
        if status == 0 and chunks[at]:
            try:
                results[at] = pickle.loads(b"".join(chunks[at]))
            except Exception:  # a result cut short: as if none came
                results[at] = None
    return results


def _child(
    job: FileJob,
    work: Callable[[FileJob], FileResult],
    start: Callable[[int], None],
    parent: int,
    reads: list[int],
    write: int,
) -> None:  # pragma: no cover - runs in the forked process
    code = 1
    try:
        for read in reads:  # its own pipe's and the earlier processes' (their ends stay theirs)
            os.close(read)
        start(parent)
        payload = pickle.dumps(work(job), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(payload)
        while view:
            view = view[os.write(write, view) :]
        code = 0
    finally:
        os._exit(code)

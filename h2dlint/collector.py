"""The cyclic garbage collector switched off around work whose objects all stay alive."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_off() -> Iterator[None]:
    """The cyclic garbage collector off while the block runs, and on again after it if it was
    (nothing frozen). Around the files checked in this process, as in a worker
    (``runner._start_worker``): each file's few cycles are freed before the next file
    (``pipeline._process_collecting``), and the last file's not at all. Around what follows
    them (the summaries merged and saved, the results recorded and saved, the report): the
    objects the checks left are all alive still, and the collection that their number makes
    due there walked them all for nothing (0.08 s of a 0.9 s pre-commit run over ten
    lightning files in one process, in the summary store's save; session 46)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@contextmanager
def paused() -> Iterator[None]:
    """The cyclic garbage collector paused while the block runs, and what is alive then frozen
    (left out of later collections, as the workers' fork leaves it): what the block makes lives
    as long as the run. Merely paused, the collector's next young collection would walk all of
    it at once."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()

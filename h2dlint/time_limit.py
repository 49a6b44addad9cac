"""A limit on the CPU time that checking one file may take.

h2dlint's questions reach into other modules (who calls a function, what an attribute holds),
and each is bounded (``provenance/common.py``), but real code has produced a blow-up before
(session 18: one folder of a package ran for over twenty minutes). A run over a whole tree in
CI must not hang on one file: past the limit, the file is reported as not checked, with a
located finding that says why and what to do, and the run goes on with the next file (as
Semgrep does per file and rule).

The limit counts the process's CPU time (``ITIMER_PROF``), not the wall clock, so that a
loaded machine does not turn a slow file into a missing one. It needs POSIX interval timers
and the main thread (where signal handlers run): elsewhere (Windows, a library caller's
thread) files are checked without a limit.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

# Seconds of CPU one file may take. Real files take well under 5 s (the largest transformers
# modeling files, every rule, one core); the limit is there for the pathological ones.
DEFAULT_TIME_LIMIT_S = 60.0

_TIMER = getattr(signal, "ITIMER_PROF", None)
_SIGNAL = getattr(signal, "SIGPROF", None)
# Whether a limit of ours is running (another user of the timer, a profiler, is left alone).
_armed = False


class TimeLimitExceeded(BaseException):
    """Raised in the middle of a file's check when its time is up. A ``BaseException``, as
    ``KeyboardInterrupt`` is: the analyses' ``except Exception`` (a failing guess costs one
    answer, not the file) must not swallow it."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"checking the file took more than {seconds:g} s of CPU time")
        self.seconds = seconds


def _usable() -> bool:
    return (
        _TIMER is not None
        and _SIGNAL is not None
        and threading.current_thread() is threading.main_thread()
    )


@contextlib.contextmanager
def cpu_time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`TimeLimitExceeded` in the code under the ``with`` once it has used
    ``seconds`` of CPU time (0: no limit). Not nested: the outermost limit holds; and none is
    set while another user of the timer (a profiler) has it running."""
    global _armed
    if _armed or seconds <= 0 or not _usable() or signal.getitimer(_TIMER)[0] > 0:  # type: ignore[arg-type]
        yield
        return

    def expired(signum: int, frame: FrameType | None) -> None:
        if _armed:
            raise TimeLimitExceeded(seconds)

    previous = signal.signal(_SIGNAL, expired)  # type: ignore[arg-type]
    _armed = True
    signal.setitimer(_TIMER, seconds)  # type: ignore[arg-type]
    try:
        yield
    finally:
        disarm()
        signal.signal(_SIGNAL, previous)  # type: ignore[arg-type]


def disarm() -> None:
    """End the running limit early: what follows (writing a fixed file) must not be cut off
    half-way by it."""
    global _armed
    if _armed:
        _armed = False
        signal.setitimer(_TIMER, 0)  # type: ignore[arg-type]

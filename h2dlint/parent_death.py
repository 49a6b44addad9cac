"""Worker processes that end when the run that forked them ends.

A pool's workers wait for work on a pipe whose write end every forked worker inherits, so when
the main process is killed without its cleanup (SIGKILL, the out-of-memory killer, a CI job's
timeout) the pipe never reaches end-of-file and the workers sleep on, reparented to init, each
holding its share of the run's memory. On Linux a worker asks the kernel for SIGTERM when its
parent dies (``prctl(PR_SET_PDEATHSIG)``) and leaves at once if the parent is already gone.
Elsewhere workers are spawned, not forked, and see the pipe close.
"""

from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int) -> None:
    """In a freshly started worker of the process ``parent``: be terminated when it dies."""
    if sys.platform != "linux":
        return
    import ctypes  # only in workers: the lint path's main process never needs it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl (a libc without it): workers live as before
        return
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)

"""``h2dlint trace``: watch a real program's host<->device copies and syncs, and join them to the
findings (see ``docs/trace.md``).

- ``events``: what a trace records, and the trace file (pure; ``check --trace`` reads it);
- ``frames``: the user's stack at an event;
- ``recorder``: groups events, finds per-item bursts, tells whether a copy ran asynchronously;
- ``intercept``: the torch function and dispatch modes and the wrapped synchronize calls;
- ``lines``: which lines ran (``sys.monitoring``, Python 3.12+);
- ``session``: start and stop all of it;
- ``join``: findings vs events (confirmed, contradicted, not reached, missed);
- ``report``: text, JSON, SARIF; ``lint``, ``finish``: the static side and the reports;
- ``program``, ``command``: ``h2dlint trace -- python ...``;
- ``api``: :func:`trace`, a context manager and decorator for tests and notebooks.

Importing this package does not import torch: only starting a trace does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from h2dlint.trace.api import trace

__all__ = ["trace"]


def __getattr__(name: str) -> Any:
    if name == "trace":
        from h2dlint.trace.api import trace

        return trace
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Accumulates a trace's events into groups and finds bursts, from plain values.

The torch side (``intercept``) measures and classifies each call and hands the result here; this
module knows nothing of torch, so its logic is tested on any machine.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from h2dlint.trace.events import BLOCKING, H2D, STAGED, SYNC, Burst, EventGroup, Frame

BURST_MIN = 8
"""Copies from one call site, one right after another, that make a burst."""
BURST_GAP_OPS = 32
"""Most operations between two copies of one call site for them to be in the same burst: per-item
copies have a few between them, steps of a training or serving loop many more."""

ASYNC = "async"
WAITED = "waited"
UNKNOWN = "unknown"


def async_outcome(non_blocking: bool, pending: bool | None, done_after: bool | None) -> str:
    """Whether an H2D copy ran asynchronously, from the stream's state around the call.

    ``pending``: the stream still had work queued when the copy was called (None: unknown);
    ``done_after``: that work had finished when the call returned (None: unknown). A blocking copy
    (``non_blocking=False``) waits for the stream by design. A ``non_blocking`` one ran
    asynchronously when the work queued before it is still running once it returned, and the
    host waited when that work finished during the call. With nothing queued before the copy
    there is nothing to wait for, and no telling."""
    if not non_blocking:
        return WAITED
    if not pending or done_after is None:
        return UNKNOWN
    return WAITED if done_after else ASYNC


@dataclass
class _Run:
    last_op: int
    copies: int
    nbytes: int
    host_ms: float


class Recorder:
    """The events of one trace. Thread-safe: explicit syncs may come from any thread."""

    def __init__(self, burst_min: int = BURST_MIN, burst_gap_ops: int = BURST_GAP_OPS) -> None:
        self.burst_min = burst_min
        self.burst_gap_ops = burst_gap_ops
        self.ops = 0  # operations seen so far (the dispatch mode counts every aten op)
        self.h2d_seen = 0
        self.syncs_seen = 0
        self.api: object | None = None  # the outermost torch function being called, if any
        self._groups: dict[tuple[object, ...], EventGroup] = {}
        self._runs: dict[Frame, _Run] = {}
        self._bursts: dict[Frame, Burst] = {}
        self._lock = threading.Lock()

    def _group(self, group: EventGroup) -> EventGroup:
        key = (*group.key(), group.non_blocking, group.pinned, group.dense)
        found = self._groups.get(key)
        if found is None:
            self._groups[key] = found = group
        return found

    def copy(
        self,
        stack: tuple[Frame, ...],
        what: str,
        op: str,
        nbytes: int,
        non_blocking: bool,
        pinned: bool,
        dense: bool,
        host_ms: float,
        outcome: str,
    ) -> None:
        """One host-to-device copy: ``outcome`` from :func:`async_outcome`."""
        if not stack:
            return
        staged = not (pinned and dense)
        reason = BLOCKING if not non_blocking else (STAGED if staged else "")
        with self._lock:
            self.h2d_seen += 1
            group = self._group(
                EventGroup(
                    H2D,
                    what,
                    op,
                    stack,
                    reason,
                    non_blocking=non_blocking,
                    pinned=pinned,
                    dense=dense,
                )
            )
            group.add(host_ms)
            group.nbytes += nbytes
            if outcome == ASYNC:
                group.ran_async += 1
            elif outcome == WAITED:
                group.waited += 1
            else:
                group.unknown += 1
            self._burst_step(stack[0], nbytes, host_ms)

    def sync(
        self, stack: tuple[Frame, ...], what: str, op: str, reason: str, host_ms: float
    ) -> None:
        """One host sync, ``host_ms`` long."""
        if not stack:
            return
        with self._lock:
            self.syncs_seen += 1
            self._group(EventGroup(SYNC, what, op, stack, reason)).add(host_ms)

    def _burst_step(self, site: Frame, nbytes: int, host_ms: float) -> None:
        run = self._runs.get(site)
        if run is not None and self.ops - run.last_op <= self.burst_gap_ops:
            run.copies += 1
            run.nbytes += nbytes
            run.host_ms += host_ms
            run.last_op = self.ops
            return
        if run is not None:
            self._close(site, run)
        self._runs[site] = _Run(self.ops, 1, nbytes, host_ms)

    def _close(self, site: Frame, run: _Run) -> None:
        if run.copies < self.burst_min:
            return
        burst = self._bursts.setdefault(site, Burst(site))
        burst.bursts += 1
        burst.copies += run.copies
        burst.largest = max(burst.largest, run.copies)
        burst.nbytes += run.nbytes
        burst.host_ms += run.host_ms

    def groups(self) -> list[EventGroup]:
        with self._lock:
            return list(self._groups.values())

    def bursts(self) -> list[Burst]:
        """The bursts, the runs still open counted too."""
        with self._lock:
            for site, run in self._runs.items():
                self._close(site, run)
            self._runs.clear()
            return sorted(self._bursts.values(), key=lambda b: (-b.copies, b.site))

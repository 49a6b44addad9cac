"""What a measurement records: copies, syncs, each side's and each pair's results, and the pure
helpers over them. Moved out of ``measure.py`` as it was; torch is imported only inside
functions."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from h2dlint.verify.copies import D2H_PREFIX, PAGEABLE_H2D, PINNED_H2D, CopyRecord

SLEEP_MS = 40.0
"""Shortest sleep kernel used to test for host blocking, in milliseconds."""
SLEEP_FACTOR = 4.0
"""The sleep kernel lasts at least this many times ``run``'s median host time."""
DEFAULT_REPEATS = 30
WARMUP = 3
RACE_RUNS = 3
"""Runs per side of a race pair whose outputs are compared with the expected ones: ``after``
must be right in every one, ``before`` is wrong when it is wrong in any one."""
SLEEP_REPEATS = 5

SYNC_WARNING = "called a synchronizing CUDA operation"

SYNC_DEBUG = "sync debug mode"
SYNC_STAGED = "non_blocking copy through pageable memory"
SYNC_EVENT = "event wait"


@dataclass(frozen=True)
class SyncRecord:
    """One synchronization during ``run``: where it came from and the user's line."""

    source: str
    line: str | None = None
    detail: str = ""


@dataclass
class SideMeasurement:
    """What was measured for one side (before or after) of a pair."""

    path: str
    memcpy: dict[str, int] | None
    copies: list[CopyRecord] = field(default_factory=list)
    syncs: list[SyncRecord] = field(default_factory=list)
    sleep_ms: float = 0.0
    host_ms_under_sleep: float = 0.0
    host_ms: float = 0.0
    host_spread_ms: float = 0.0
    gpu_ms: float = 0.0
    gpu_spread_ms: float = 0.0
    repeats: int = 0

    def _memcpy(self, match: Callable[[str], bool]) -> int | None:
        if self.memcpy is None:
            return None
        return sum(count for name, count in self.memcpy.items() if match(name))

    @property
    def h2d_pageable(self) -> int | None:
        """Pageable->Device memcpys the profiler recorded; None when it could not see them."""
        return self._memcpy(lambda name: name == PAGEABLE_H2D)

    @property
    def h2d_pinned(self) -> int | None:
        return self._memcpy(lambda name: name == PINNED_H2D)

    @property
    def d2h(self) -> int | None:
        return self._memcpy(lambda name: name.startswith(D2H_PREFIX))

    @property
    def traced_h2d_staged(self) -> int:
        """H2D copy ops whose source was not pinned and contiguous, from the dispatch mode."""
        return sum(1 for c in self.copies if c.direction == "HTD" and c.staged)

    @property
    def sync_count(self) -> int:
        return len(self.syncs)


@dataclass
class PairMeasurement:
    """Both sides of a pair, whether their outputs are equal, or why nothing could be measured."""

    before: SideMeasurement | None
    after: SideMeasurement | None
    equal_reason: str | None = None  # None: the outputs are equal
    error: str | None = None
    # A race pair (a side defines ``expected(state)``): why each side's outputs differ from the
    # expected ones (None: they match in every run compared).
    race: bool = False
    before_wrong: str | None = None
    after_wrong: str | None = None


def median_and_spread(samples: list[float]) -> tuple[float, float]:
    """Median and interquartile range (inclusive quartiles) of ``samples``; 0 spread for < 2."""
    if not samples:
        return 0.0, 0.0
    if len(samples) < 2:
        return samples[0], 0.0
    q1, q2, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return q2, q3 - q1


class FixtureRunError(Exception):
    """``setup`` or ``run`` of a fixture raised; the message names the file."""

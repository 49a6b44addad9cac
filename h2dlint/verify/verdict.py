"""PASS or FAIL for a fixture pair, from the two sides' measurements. Pure: no torch, no GPU.

The rule (``docs/verify.md`` states it too). ``after`` PASSES when all of these hold:

1. it makes no pageable host-to-device copy: the profiler's ``Memcpy HtoD (Pageable -> Device)``
   count is 0 (where the profiler cannot see memcpys: no traced H2D copy op has a source that is
   not pinned and contiguous);
2. it has no more syncs than ``before``; with ``SYNC_RULE = True``, strictly fewer;
3. it does not block the host under the sleep kernel, unless ``HOST_READ = True``; a run blocks
   when its host time behind the sleep kernel exceeds its median host time without it by at least
   half the sleep's measured length;
4. its outputs equal ``before``'s exactly;
5. it is not slower: its median host time and its median GPU time are each at most ``before``'s
   median plus the tolerance ``max(before's spread, after's spread, 0.05 ms)``, where spread is
   the interquartile range of the repeated runs.

Otherwise it FAILS, with one reason per broken condition.

A *race pair* (a side defines ``expected(state)``: ``before`` races, ``after`` waits) is judged
otherwise, since its ``after`` must wait where ``before`` did not:

1. ``after`` gives the expected outputs in every run compared;
2. ``before`` does not, in at least one: the race is shown (reported as what it is, a wrong
   result, whether the pair passes or not);
3. ``after`` makes no pageable host-to-device copy (as above);
4. ``after`` is not slower than needed: its median GPU time is at most ``before``'s GPU time
   plus ``before``'s host time, plus the tolerance (a correct program may have to let the
   device wait for host work that the racy one did too early, but no more), and its median
   host time at most its own GPU time plus ``before``'s host time, plus the tolerance (the
   host may wait for the device's work, then do what ``before`` does; nothing more).

Its syncs and its blocking under the sleep kernel are reported, not judged: the wait is the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from h2dlint.verify.copies import PAGEABLE_H2D
from h2dlint.verify.fixtures import PairOptions
from h2dlint.verify.records import PairMeasurement, SideMeasurement

FLOOR_MS = 0.05
"""Smallest tolerance, in ms, when comparing median times."""
BLOCK_FRACTION = 0.5
"""A run blocks when the sleep kernel adds at least this fraction of its length to the run."""


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reasons: list[str] = field(default_factory=list)


def blocks(side: SideMeasurement) -> bool:
    """Whether ``run`` waited for the sleep kernel: the kernel added at least half its length."""
    return side.host_ms_under_sleep - side.host_ms >= BLOCK_FRACTION * side.sleep_ms


def tolerance(before_spread_ms: float, after_spread_ms: float) -> float:
    return max(before_spread_ms, after_spread_ms, FLOOR_MS)


def pageable_h2d(side: SideMeasurement) -> int:
    """Pageable H2D copies: the profiler's count, or the traced one where it is unavailable."""
    return side.traced_h2d_staged if side.h2d_pageable is None else side.h2d_pageable


def _lines(lines: list[str | None]) -> str:
    known = list(dict.fromkeys(line for line in lines if line))
    return f" at {', '.join(known)}" if known else ""


def _pageable_reason(after: SideMeasurement) -> str | None:
    count = pageable_h2d(after)
    if not count:
        return None
    lines = _lines([c.line for c in after.copies if c.direction == "HTD" and c.staged])
    what = PAGEABLE_H2D if after.h2d_pageable is not None else "traced, source not pinned"
    plural = "copy" if count == 1 else "copies"
    return f"after makes {count} pageable H2D {plural} ({what}){lines}"


def _sync_reason(before: SideMeasurement, after: SideMeasurement, sync_rule: bool) -> str | None:
    b, a = before.sync_count, after.sync_count
    lines = _lines([s.line for s in after.syncs])
    if a > b:
        return f"after has more syncs than before ({a} > {b}){lines}"
    if sync_rule and a >= b:
        return f"after must sync less than before (SYNC_RULE): {a} syncs vs {b}{lines}"
    return None


def _blocking_reason(after: SideMeasurement, host_read: bool) -> str | None:
    if host_read or not blocks(after):
        return None
    return (
        f"after blocks the host: {after.host_ms_under_sleep:.2f} ms behind a "
        f"{after.sleep_ms:.1f} ms sleep kernel, {after.host_ms:.2f} ms without it "
        "(set HOST_READ = True if the workload must read a result on the host)"
    )


def _slower_reasons(before: SideMeasurement, after: SideMeasurement) -> list[str]:
    reasons = []
    for clock, b, a, b_spread, a_spread in (
        ("host", before.host_ms, after.host_ms, before.host_spread_ms, after.host_spread_ms),
        ("GPU", before.gpu_ms, after.gpu_ms, before.gpu_spread_ms, after.gpu_spread_ms),
    ):
        allowed = tolerance(b_spread, a_spread)
        if a > b + allowed:
            reasons.append(
                f"after is slower on the {clock}: median {a:.3f} ms vs {b:.3f} ms "
                f"(tolerance {allowed:.3f} ms)"
            )
    return reasons


def judge(
    before: SideMeasurement,
    after: SideMeasurement,
    *,
    equal_reason: str | None,
    host_read: bool = False,
    sync_rule: bool = False,
) -> Verdict:
    """The verdict on ``after`` against ``before``; ``equal_reason`` is None when outputs match."""
    reasons = [
        reason
        for reason in (
            _pageable_reason(after),
            _sync_reason(before, after, sync_rule),
            _blocking_reason(after, host_read),
            equal_reason,  # e.g. "outputs[2] differs: dtype int64 vs int32"
        )
        if reason is not None
    ]
    reasons += _slower_reasons(before, after)
    return Verdict(passed=not reasons, reasons=reasons)


def race_reasons(measurement: PairMeasurement) -> list[str]:
    """Why a race pair fails (see the module's docstring); empty when it passes."""
    before, after = measurement.before, measurement.after
    assert before is not None and after is not None
    reasons = []
    if measurement.after_wrong is not None:
        reasons.append(
            f"after gives a wrong result (after's value first, the expected second): "
            f"{measurement.after_wrong}"
        )
    if measurement.before_wrong is None:
        reasons.append(
            "before gave the expected outputs: the race did not show (queue a long kernel, "
            "such as torch.cuda._sleep, on the stream before the copy)"
        )
    pageable = _pageable_reason(after)
    if pageable is not None:
        reasons.append(pageable)
    allowed = tolerance(before.gpu_spread_ms, after.gpu_spread_ms)
    needed = before.gpu_ms + before.host_ms
    if after.gpu_ms > needed + allowed:
        reasons.append(
            f"after is slower on the GPU than waiting needs: median {after.gpu_ms:.3f} ms vs at "
            f"most {needed:.3f} ms (before's GPU and host time; tolerance {allowed:.3f} ms)"
        )
    allowed = tolerance(before.host_spread_ms, after.host_spread_ms)
    needed = after.gpu_ms + before.host_ms
    if after.host_ms > needed + allowed:
        reasons.append(
            f"after holds the host longer than the device's work needs: median {after.host_ms:.3f}"
            f" ms vs at most {needed:.3f} ms (tolerance {allowed:.3f} ms)"
        )
    return reasons


def race_shown(measurement: PairMeasurement) -> str | None:
    """For a race pair whose ``before`` gave a wrong result: that result, as the race found."""
    if not measurement.race or measurement.before_wrong is None:
        return None
    return (
        f"before gives a wrong result, the race detected (before's value first, the expected "
        f"second): {measurement.before_wrong}"
    )


def judge_pair(measurement: PairMeasurement, options: PairOptions) -> Verdict:
    """The verdict on a measured pair; a pair that could not be measured FAILS with the error."""
    if measurement.error is not None:
        return Verdict(passed=False, reasons=[measurement.error])
    if measurement.before is None or measurement.after is None:
        return Verdict(passed=False, reasons=["nothing was measured"])
    if measurement.race:
        reasons = race_reasons(measurement)
        return Verdict(passed=not reasons, reasons=reasons)
    return judge(
        measurement.before,
        measurement.after,
        equal_reason=measurement.equal_reason,
        host_read=options.host_read,
        sync_rule=options.sync_rule,
    )

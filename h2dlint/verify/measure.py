"""Every torch/CUDA measurement behind ``h2dlint verify``.

For each side of a pair (see ``docs/verify.md``):

- memcpy kinds from ``torch.profiler`` (``Memcpy HtoD (Pageable -> Device)`` and the rest, by
  name), or ``None`` when the profiler cannot see GPU activity on this machine;
- syncs: the warnings ``torch.cuda.set_sync_debug_mode("warn")`` issues, plus what it misses,
  found by a ``TorchDispatchMode`` on the copy ops (a ``non_blocking`` copy whose host side is not
  pinned and contiguous is made from pageable memory, which the driver stages through its own
  pinned bounce buffer, and the debug mode says nothing)
  and by watching ``torch.cuda.Event.synchronize`` (counted when it had to wait);
- host blocking: the host time of ``run`` while a calibrated ``torch.cuda._sleep`` kernel holds
  the stream;
- host and GPU (CUDA events) time of ``run``: medians and interquartile ranges over repeated runs
  after a warm-up, the two sides interleaved so that drift hits both alike.

This module imports torch only inside functions: it stays importable (its dataclasses and pure
helpers usable) where torch is not installed.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from h2dlint.verify.compare import compare_outputs, snapshot
from h2dlint.verify.copies import (
    D2H_PREFIX,
    H2D_PREFIX,
    PAGEABLE_H2D,
    PINNED_H2D,
    CopyRecord,
    copy_record,
    internal_dirs,
    memcpy_counts,
    op_arg,
)
from h2dlint.verify.fixtures import Fixture, expected_of

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
CALIBRATION_CYCLES = 20_000_000

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


def user_line(fixture_file: str) -> str | None:
    """``name.py:LINE`` of the innermost frame in ``fixture_file`` on the current Python stack;
    else of the innermost frame outside torch, this package and the standard library."""
    frame = sys._getframe(1)
    fallback: str | None = None
    internal = internal_dirs(getattr(sys.modules.get("torch"), "__file__", None))
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename == fixture_file:
            return f"{Path(filename).name}:{frame.f_lineno}"
        if fallback is None and not filename.startswith(internal):
            fallback = f"{filename}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return fallback


def copy_recorder(fixture_file: str, copies: list[CopyRecord], syncs: list[SyncRecord]) -> Any:
    """A ``TorchDispatchMode`` that appends every host<->device copy op to ``copies``, and a
    :data:`SYNC_STAGED` sync to ``syncs`` for each ``non_blocking`` one that is staged."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    aten = torch.ops.aten
    to_copy, copy_, copy = aten._to_copy, aten.copy_, aten.copy

    class CopyRecorder(TorchDispatchMode):
        def __torch_dispatch__(
            self,
            func: Any,
            types: Any,
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            kwargs = kwargs or {}
            mark = len(syncs)
            out = func(*args, **kwargs)
            packet = getattr(func, "overloadpacket", None)
            if packet is to_copy:
                src, dst = args[0], out
                non_blocking = kwargs.get("non_blocking", False)
            elif packet is copy_ or packet is copy:
                src, dst = op_arg(args, kwargs, 1, "src"), out
                non_blocking = op_arg(args, kwargs, 2, "non_blocking") or False
            else:
                return out
            if not (isinstance(src, torch.Tensor) and isinstance(dst, torch.Tensor)):
                return out
            line = user_line(fixture_file)
            record = copy_record(str(packet), src, dst, non_blocking, line)
            if record is not None:
                copies.append(record)
                reported = any(s.source == SYNC_DEBUG for s in syncs[mark:])
                if record.hidden_sync and not reported:  # never count one sync twice
                    detail = f"{record.op} {record.direction} of {record.nbytes} bytes"
                    syncs.append(SyncRecord(SYNC_STAGED, line, detail))
            return out

    return CopyRecorder()


@contextlib.contextmanager
def sync_warnings(fixture_file: str, syncs: list[SyncRecord]) -> Iterator[None]:
    """Record each sync-debug-mode warning issued inside the block as a :data:`SYNC_DEBUG` sync
    at the user's line (the caller turns the debug mode on). Other warnings are dropped."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        text = str(message)
        if SYNC_WARNING in text:
            where = user_line(fixture_file) or f"{filename}:{lineno}"
            syncs.append(SyncRecord(SYNC_DEBUG, where, text.splitlines()[0][:120]))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        yield


@contextlib.contextmanager
def event_waits(fixture_file: str, syncs: list[SyncRecord]) -> Iterator[None]:
    """Record a :data:`SYNC_EVENT` sync for each ``torch.cuda.Event.synchronize()`` that had to
    wait (its event not yet complete): the sync debug mode does not report these."""
    import torch

    event_class = torch.cuda.Event
    original = event_class.synchronize

    def synchronize(event: torch.cuda.Event) -> None:
        if not event.query():
            syncs.append(SyncRecord(SYNC_EVENT, user_line(fixture_file), "Event.synchronize()"))
        original(event)

    event_class.synchronize = synchronize  # type: ignore[method-assign, assignment]
    try:
        yield
    finally:
        event_class.synchronize = original  # type: ignore[method-assign]


class _Side:
    """One fixture of a pair, set up on the device, with error messages that name its file."""

    def __init__(self, fixture: Fixture) -> None:
        self.fixture = fixture
        self.file = str(fixture.path.resolve())
        self.state: Any = None

    def setup(self, device: Any) -> None:
        try:
            self.state = self.fixture.setup(device)
        except Exception as exc:
            raise FixtureRunError(
                f"{self.fixture.path}: setup() raised {type(exc).__name__}: {exc}"
            ) from exc

    def run(self) -> Any:
        try:
            return self.fixture.run(self.state)
        except Exception as exc:
            raise FixtureRunError(
                f"{self.fixture.path}: run() raised {type(exc).__name__}: {exc}"
            ) from exc


class Harness:
    """Measures fixture pairs on one CUDA device. :meth:`start` warms the GPU up, calibrates the
    sleep kernel and checks that the profiler sees memcpys; then :meth:`measure_pair`."""

    def __init__(self, device: str = "cuda") -> None:
        import torch

        self.torch = torch
        self.device = torch.device(device)
        if self.device.type == "cuda" and self.device.index is None:
            # torch.cuda.set_device and friends need an index: "cuda" is the current device.
            self.device = torch.device("cuda", torch.cuda.current_device())
        self.cycles_per_ms = 0.0
        self.profiler_ok = False

    def start(self) -> Harness:
        torch = self.torch
        torch.cuda.set_device(self.device)
        self.cycles_per_ms = self._calibrate()
        self.profiler_ok = self._profiler_sees_memcpy()
        # The first dispatch mode imports torch._dynamo (seconds): do it now, not inside a trace.
        with copy_recorder("", [], []):
            torch.ones(2) + 1
        return self

    def environment(self) -> dict[str, Any]:
        torch = self.torch
        return {
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "device": str(self.device),
            "device_name": torch.cuda.get_device_name(self.device),
            "min_sleep_ms": SLEEP_MS,
            "sleep_factor": SLEEP_FACTOR,
            "sleep_cycles_per_ms": round(self.cycles_per_ms, 1),
            "profiler_sees_memcpy": self.profiler_ok,
        }

    def sync(self) -> None:
        self.torch.cuda.synchronize(self.device)

    def _events(self) -> tuple[Any, Any]:
        event = self.torch.cuda.Event
        return event(enable_timing=True), event(enable_timing=True)

    def _calibrate(self) -> float:
        """Cycles of ``torch.cuda._sleep`` per millisecond, measured with CUDA events after a
        warm-up that brings the clocks up (as in the ground-truth script)."""
        torch = self.torch
        a = torch.randn(4096, 4096, device=self.device)
        for _ in range(50):
            a @ a
        self.sync()
        del a
        cycles, per_ms = CALIBRATION_CYCLES, 0.0
        for _ in range(4):
            start, end = self._events()
            start.record()
            torch.cuda._sleep(cycles)
            end.record()
            self.sync()
            per_ms = cycles / max(start.elapsed_time(end), 1e-3)
            cycles = int(per_ms * SLEEP_MS)
        return per_ms

    def _profiler_sees_memcpy(self) -> bool:
        """Whether the profiler records a known H2D memcpy here (CUPTI may be unavailable)."""
        try:
            names = self._profiled_names(lambda: self.torch.ones(1 << 16).to(self.device))
        except Exception:
            return False
        return any(name.startswith(H2D_PREFIX) for name in names)

    def _profiled_names(self, fn: Callable[[], Any]) -> list[str]:
        from torch.profiler import ProfilerActivity, profile

        self.sync()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            out = fn()
            self.sync()
        del out
        return [event.name for event in prof.events()]

    def measure_pair(self, before: Fixture, after: Fixture, repeats: int) -> PairMeasurement:
        sides = [_Side(before), _Side(after)]
        try:
            return self._measure(sides, repeats)
        except FixtureRunError as exc:
            return PairMeasurement(None, None, error=str(exc))
        finally:
            for side in sides:
                side.state = None
            with contextlib.suppress(Exception):
                self.sync()
                self.torch.cuda.empty_cache()

    def _measure(self, sides: list[_Side], repeats: int) -> PairMeasurement:
        for side in sides:
            side.setup(self.device)
        for side in sides:
            for _ in range(WARMUP):
                side.run()
                self.sync()
        outputs = []
        for side in sides:
            out = side.run()
            self.sync()
            outputs.append(snapshot(out))
            del out
        equal_reason = compare_outputs(outputs[0], outputs[1])
        del outputs
        race = any(side.fixture.expected is not None for side in sides)
        wrong = self._wrong(sides) if race else [None, None]
        # Timings first, before any profiler or dispatch mode has run on these fixtures.
        timings = self._time(sides, repeats)
        results = []
        for side, (host, gpu) in zip(sides, timings, strict=True):
            host_ms, host_spread = median_and_spread(host)
            gpu_ms, gpu_spread = median_and_spread(gpu)
            under_sleep, sleep_ms = self._under_sleep(side, host_ms)
            memcpy = self._memcpy(side)
            copies, syncs = self._trace(side)
            if memcpy is not None and not memcpy and copies:
                memcpy = None  # the dispatch mode saw copies the profiler missed: don't trust 0
            results.append(
                SideMeasurement(
                    path=str(side.fixture.path),
                    memcpy=memcpy,
                    copies=copies,
                    syncs=syncs,
                    sleep_ms=sleep_ms,
                    host_ms_under_sleep=under_sleep,
                    host_ms=host_ms,
                    host_spread_ms=host_spread,
                    gpu_ms=gpu_ms,
                    gpu_spread_ms=gpu_spread,
                    repeats=repeats,
                )
            )
        return PairMeasurement(
            results[0],
            results[1],
            equal_reason=equal_reason,
            race=race,
            before_wrong=wrong[0],
            after_wrong=wrong[1],
        )

    def _wrong(self, sides: list[_Side]) -> list[str | None]:
        """For each side of a race pair, why its outputs differ from ``expected(state)`` in the
        first of ``RACE_RUNS`` runs where they do, or None when they match in all of them."""
        found: list[str | None] = []
        for side, other in zip(sides, sides[::-1], strict=True):
            expected = expected_of(side.fixture, other.fixture)
            reason = None
            for _ in range(RACE_RUNS):
                out = snapshot(side.run())
                self.sync()
                try:
                    want = snapshot(expected(side.state)) if expected is not None else None
                except Exception as exc:
                    raise FixtureRunError(
                        f"{side.fixture.path}: expected() raised {type(exc).__name__}: {exc}"
                    ) from exc
                reason = compare_outputs(out, want)
                if reason is not None:
                    break
            found.append(reason)
        return found

    def _time(self, sides: list[_Side], repeats: int) -> list[tuple[list[float], list[float]]]:
        """Host ms (until ``run`` returns) and GPU ms (CUDA events around ``run`` on the current
        stream) of each run, the sides interleaved, their order alternating each round."""
        samples: list[tuple[list[float], list[float]]] = [([], []) for _ in sides]
        start, end = self._events()
        for round_ in range(repeats):
            order = range(len(sides)) if round_ % 2 == 0 else reversed(range(len(sides)))
            for index in order:
                self.sync()
                start.record()
                t0 = time.perf_counter()
                out = sides[index].run()
                t1 = time.perf_counter()
                end.record()
                self.sync()
                del out
                samples[index][0].append((t1 - t0) * 1e3)
                samples[index][1].append(start.elapsed_time(end))
        return samples

    def _under_sleep(self, side: _Side, host_ms: float) -> tuple[float, float]:
        """Median host ms of ``run`` launched behind a sleep kernel, and the sleep's measured ms.

        The sleep lasts ``max(SLEEP_MS, SLEEP_FACTOR * host_ms)`` so that even a ``run`` with much
        host work of its own reaches its copies while the stream is still busy."""
        torch = self.torch
        cycles = int(max(SLEEP_MS, SLEEP_FACTOR * host_ms) * self.cycles_per_ms)
        under, slept = [], []
        start, end = self._events()
        for _ in range(SLEEP_REPEATS):
            self.sync()
            start.record()
            torch.cuda._sleep(cycles)
            end.record()
            t0 = time.perf_counter()
            out = side.run()
            t1 = time.perf_counter()
            self.sync()
            del out
            under.append((t1 - t0) * 1e3)
            slept.append(start.elapsed_time(end))
        return statistics.median(under), statistics.median(slept)

    def _memcpy(self, side: _Side) -> dict[str, int] | None:
        if not self.profiler_ok:
            return None
        try:
            return memcpy_counts(self._profiled_names(side.run))
        except FixtureRunError:
            raise
        except Exception:
            return None

    def _trace(self, side: _Side) -> tuple[list[CopyRecord], list[SyncRecord]]:
        """Copies (dispatch mode) and syncs (debug mode, staged copies, event waits) of one run."""
        torch = self.torch
        copies: list[CopyRecord] = []
        syncs: list[SyncRecord] = []
        self.sync()
        previous = torch.cuda.get_sync_debug_mode()
        out = None
        with sync_warnings(side.file, syncs), event_waits(side.file, syncs):
            torch.cuda.set_sync_debug_mode("warn")
            try:
                with copy_recorder(side.file, copies, syncs):
                    out = side.run()
            finally:
                torch.cuda.set_sync_debug_mode(previous)
        self.sync()
        del out
        return copies, syncs

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
import time
from collections.abc import Callable
from typing import Any

from h2dlint.verify.compare import compare_outputs, snapshot
from h2dlint.verify.copies import H2D_PREFIX, CopyRecord, memcpy_counts
from h2dlint.verify.fixtures import Fixture, expected_of
from h2dlint.verify.recorders import copy_recorder, event_waits, sync_warnings
from h2dlint.verify.records import (
    RACE_RUNS,
    SLEEP_FACTOR,
    SLEEP_MS,
    SLEEP_REPEATS,
    WARMUP,
    FixtureRunError,
    PairMeasurement,
    SideMeasurement,
    SyncRecord,
    median_and_spread,
)
from h2dlint.verify.sleep_kernel import cycles_per_ms


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
        """Cycles of ``torch.cuda._sleep`` per millisecond on this GPU."""
        return cycles_per_ms(self.torch, self.device, target_ms=SLEEP_MS)

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

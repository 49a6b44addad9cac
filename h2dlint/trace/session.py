"""One trace session: start the interception (and line coverage, and the profiler if asked),
stop it, and hand back what was recorded as :class:`~h2dlint.trace.events.TraceData`."""

from __future__ import annotations

import contextlib
import os
import platform
import site
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from h2dlint.trace.events import TraceData
from h2dlint.trace.frames import StackReader
from h2dlint.trace.intercept import Interceptor, Marker, Patches, make_mode
from h2dlint.trace.lines import LineCoverage
from h2dlint.trace.recorder import BURST_MIN, Recorder
from h2dlint.verify.copies import internal_dirs, memcpy_counts


def library_dirs() -> tuple[str, ...]:
    """Where installed packages live (site-packages and the like): not the user's project."""
    dirs = {sysconfig.get_paths()[name] for name in ("purelib", "platlib", "stdlib")}
    with contextlib.suppress(AttributeError):  # virtualenv's old site module has none
        dirs.update(site.getsitepackages())
    user = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    if isinstance(user, str):
        dirs.add(user)
    return tuple(sorted(os.path.abspath(d) for d in dirs if d))


def project_filter(root: Path, torch_file: str | None) -> Callable[[str], bool]:
    """Whether an absolute file is the user's: a ``.py`` below ``root``, not torch, h2dlint, the
    standard library or an installed package."""
    prefix = os.path.join(os.path.abspath(root), "")
    excluded = (*internal_dirs(torch_file), *library_dirs())

    def wanted(file: str) -> bool:
        return file.startswith(prefix) and file.endswith(".py") and not file.startswith(excluded)

    return wanted


def cuda_marker(torch: Any) -> Marker:
    """None when the device's current stream is idle; else the ``query`` of an event recorded on
    it now (True once the work queued so far has finished)."""

    def mark(device: Any) -> Callable[[], bool] | None:
        stream = torch.cuda.current_stream(device)
        if stream.query():
            return None
        event = torch.cuda.Event()
        event.record(stream)
        return event.query  # type: ignore[no-any-return]

    return mark


def environment(torch: Any) -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": getattr(torch.version, "cuda", None),
    }
    try:
        if torch.cuda.is_available():
            info["device_name"] = torch.cuda.get_device_name()
    except Exception:  # pragma: no cover - a broken driver still lets the trace run
        pass
    return info


class Session:
    """Start with :meth:`start`, end with :meth:`stop` (same thread)."""

    def __init__(
        self,
        torch: Any,
        *,
        root: Path | None = None,
        burst_min: int = BURST_MIN,
        device_types: tuple[str, ...] = ("cuda",),
        marker: Marker | None = None,
        lines: bool = True,
        profile: bool = False,
    ) -> None:
        self.torch = torch
        self.root = (root or Path.cwd()).resolve()
        self.recorder = Recorder(burst_min)
        torch_file = getattr(torch, "__file__", None)
        self.stacks = StackReader(torch_file)
        if marker is None and "cuda" in device_types and torch.cuda.is_available():
            marker = cuda_marker(torch)
        self.interceptor = Interceptor(torch, self.recorder, self.stacks, device_types, marker)
        self.patches = Patches(torch, self.interceptor)
        self.coverage = LineCoverage(project_filter(self.root, torch_file)) if lines else None
        self.profile = profile
        self._profiler: Any = None
        self._mode: Any = None
        self._started = 0.0

    def start(self) -> None:
        torch = self.torch
        dispatch_mode = make_mode(self.interceptor)
        # The first dispatch mode imports torch._dynamo (seconds): before the clock starts.
        with dispatch_mode:
            torch.ones(1) + 1
        self.recorder.ops = 0
        if self.profile:
            self._profiler = _start_profiler(torch)
        self.patches.install()
        if self.coverage is not None and not self.coverage.start():
            self.coverage = None
        self._started = time.perf_counter()
        dispatch_mode.__enter__()
        self._mode = dispatch_mode

    def stop(self) -> TraceData:
        wall = time.perf_counter() - self._started
        try:
            if self._mode is not None:
                self._mode.__exit__(None, None, None)
        finally:
            self._mode = None
            self.patches.remove()
        lines = self.coverage.stop() if self.coverage is not None else None
        profiler = _stop_profiler(self._profiler) if self._profiler is not None else None
        self._profiler = None
        return TraceData(
            groups=self.recorder.groups(),
            bursts=self.recorder.bursts(),
            lines_run=None if lines is None else {f: sorted(rows) for f, rows in lines.items()},
            root=str(self.root),
            wall_s=wall,
            environment=environment(self.torch),
            profiler=profiler,
            burst_min=self.recorder.burst_min,
        )


def _start_profiler(torch: Any) -> Any:
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    profiler = profile(activities=activities)
    profiler.start()
    return profiler


def _stop_profiler(profiler: Any) -> dict[str, int] | None:
    try:
        profiler.stop()
        return memcpy_counts([event.name for event in profiler.events()])
    except Exception:
        return None

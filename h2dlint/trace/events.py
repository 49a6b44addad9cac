"""What a trace records, as plain values, and the trace file (JSON) that holds it.

A trace is a list of :class:`EventGroup`: the events of one kind (an H2D copy, a host sync) made
by one operation at one user stack, with their count and the host time they took, measured. An H2D
group also says what the host memory was (pageable, pinned, a strided view of a pinned buffer),
whether ``non_blocking`` was asked, and how often the copy was seen to run asynchronously.
:class:`Burst` records many copies from one call site in a row (per-item copies).

This module is pure Python: ``h2dlint check --trace`` reads trace files with it, without torch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRACE_FORMAT = "h2dlint-trace"
TRACE_VERSION = 1

H2D = "h2d"
SYNC = "sync"

# Why a sync synchronized (EventGroup.reason of a SYNC group).
SCALAR = "scalar read"  # .item(), bool(t), int(t), float(t), a 0-d tensor used as a size
TO_HOST = "copy to host"  # .cpu(), .tolist(), .numpy() via .cpu(), .to("cpu")
DATA_DEPENDENT = "data-dependent shape"  # nonzero, t[mask], unique, repeat_interleave(t), ...
EXPLICIT = "explicit"  # torch.cuda.synchronize(), Stream/Event.synchronize()
# Why an H2D copy held the host (EventGroup.reason of an H2D group).
BLOCKING = "blocking copy"  # non_blocking=False: PyTorch waits for the stream after it
STAGED = "staged copy"  # non_blocking from pageable (or strided pinned) memory

PAGEABLE = "pageable"
PINNED = "pinned"
PINNED_STRIDED = "pinned-strided"


class TraceFileError(Exception):
    """A trace file that cannot be read, or is not a trace."""


@dataclass(frozen=True, order=True)
class Frame:
    """One frame of user code: absolute file, line, function."""

    file: str
    line: int
    function: str

    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def to_json(self) -> list[Any]:
        return [self.file, self.line, self.function]

    @classmethod
    def from_json(cls, data: Any) -> Frame:
        file, line, function = data
        return cls(str(file), int(line), str(function))


@dataclass
class EventGroup:
    """Events of one kind, by one operation, at one user stack (innermost frame first)."""

    kind: str  # H2D or SYNC
    what: str  # what the user called: ".to()", ".item()", "bool()", "torch.cuda.synchronize()"
    op: str  # the operation seen: "aten._to_copy", "aten._local_scalar_dense", ...
    stack: tuple[Frame, ...]
    reason: str = ""  # SYNC: SCALAR, TO_HOST, DATA_DEPENDENT or EXPLICIT
    count: int = 0
    host_ms: float = 0.0  # measured wall time of the calls, summed
    max_ms: float = 0.0
    # H2D copies only.
    nbytes: int = 0
    non_blocking: bool = False
    pinned: bool = False
    dense: bool = True
    ran_async: int = 0  # returned while the stream was still busy: ran asynchronously
    waited: int = 0  # blocking, or the stream was busy before and idle after: the host waited
    unknown: int = 0  # non_blocking, the stream idle before and after: cannot tell

    @property
    def site(self) -> Frame:
        return self.stack[0]

    @property
    def memory(self) -> str:
        if not self.pinned:
            return PAGEABLE
        return PINNED if self.dense else PINNED_STRIDED

    @property
    def staged(self) -> bool:
        """CUDA copies the source through pageable memory: not pinned, or not dense."""
        return not (self.pinned and self.dense)

    @property
    def synced(self) -> int:
        """How many of the events held the host until the GPU caught up."""
        return self.count if self.kind == SYNC else self.waited

    @property
    def costly(self) -> bool:
        """A sync, or a copy that held the host or went through pageable memory."""
        return self.kind == SYNC or self.waited > 0 or self.staged

    @property
    def explicit(self) -> bool:
        return self.kind == SYNC and self.reason == EXPLICIT

    def key(self) -> tuple[Any, ...]:
        return (self.kind, self.what, self.op, self.stack, self.reason)

    def add(self, host_ms: float) -> None:
        self.count += 1
        self.host_ms += host_ms
        self.max_ms = max(self.max_ms, host_ms)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "what": self.what,
            "op": self.op,
            "reason": self.reason,
            "stack": [frame.to_json() for frame in self.stack],
            "count": self.count,
            "host_ms": round(self.host_ms, 4),
            "max_ms": round(self.max_ms, 4),
        }
        if self.kind == H2D:
            data.update(
                nbytes=self.nbytes,
                non_blocking=self.non_blocking,
                pinned=self.pinned,
                dense=self.dense,
                memory=self.memory,
                ran_async=self.ran_async,
                waited=self.waited,
                unknown=self.unknown,
            )
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EventGroup:
        return cls(
            kind=str(data["kind"]),
            what=str(data.get("what", "")),
            op=str(data.get("op", "")),
            stack=tuple(Frame.from_json(frame) for frame in data["stack"]),
            reason=str(data.get("reason", "")),
            count=int(data.get("count", 0)),
            host_ms=float(data.get("host_ms", 0.0)),
            max_ms=float(data.get("max_ms", 0.0)),
            nbytes=int(data.get("nbytes", 0)),
            non_blocking=bool(data.get("non_blocking", False)),
            pinned=bool(data.get("pinned", False)),
            dense=bool(data.get("dense", True)),
            ran_async=int(data.get("ran_async", 0)),
            waited=int(data.get("waited", 0)),
            unknown=int(data.get("unknown", 0)),
        )


@dataclass
class Burst:
    """Runs of at least ``burst_min`` H2D copies from one call site, one right after another."""

    site: Frame
    bursts: int = 0  # how many such runs
    copies: int = 0  # copies in them
    largest: int = 0  # copies in the longest run
    nbytes: int = 0
    host_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "site": self.site.to_json(),
            "bursts": self.bursts,
            "copies": self.copies,
            "largest": self.largest,
            "nbytes": self.nbytes,
            "host_ms": round(self.host_ms, 4),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Burst:
        return cls(
            site=Frame.from_json(data["site"]),
            bursts=int(data.get("bursts", 0)),
            copies=int(data.get("copies", 0)),
            largest=int(data.get("largest", 0)),
            nbytes=int(data.get("nbytes", 0)),
            host_ms=float(data.get("host_ms", 0.0)),
        )


@dataclass
class TraceData:
    """Everything one traced run recorded."""

    groups: list[EventGroup] = field(default_factory=list)
    bursts: list[Burst] = field(default_factory=list)
    # Lines of user files that ran (absolute file -> lines); None: no line coverage (Python < 3.12).
    lines_run: dict[str, list[int]] | None = None
    root: str = ""  # the directory the trace ran in; findings' relative paths are matched to it
    command: list[str] = field(default_factory=list)
    exit_code: int | None = None
    error: str | None = None  # the traced program's uncaught exception, in one line
    wall_s: float = 0.0
    environment: dict[str, Any] = field(default_factory=dict)
    # Memcpy kinds the profiler counted over the whole run (--profile), or None.
    profiler: dict[str, int] | None = None
    burst_min: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "command": list(self.command),
            "exit_code": self.exit_code,
            "error": self.error,
            "wall_s": round(self.wall_s, 4),
            "environment": dict(self.environment),
            "burst_min": self.burst_min,
            "profiler": self.profiler,
            "groups": [group.to_json() for group in sorted_groups(self.groups)],
            "bursts": [burst.to_json() for burst in self.bursts],
            "lines_run": (
                None
                if self.lines_run is None
                else {file: sorted(lines) for file, lines in sorted(self.lines_run.items())}
            ),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TraceData:
        lines = data.get("lines_run")
        return cls(
            groups=[EventGroup.from_json(group) for group in data.get("groups", [])],
            bursts=[Burst.from_json(burst) for burst in data.get("bursts", [])],
            lines_run=(
                None
                if lines is None
                else {str(file): [int(n) for n in rows] for file, rows in lines.items()}
            ),
            root=str(data.get("root", "")),
            command=[str(part) for part in data.get("command", [])],
            exit_code=None if data.get("exit_code") is None else int(data["exit_code"]),
            error=data.get("error"),
            wall_s=float(data.get("wall_s", 0.0)),
            environment=dict(data.get("environment", {})),
            profiler=data.get("profiler"),
            burst_min=int(data.get("burst_min", 0)),
        )


def sorted_groups(groups: Iterable[EventGroup]) -> list[EventGroup]:
    """Most host time first, then by site."""
    return sorted(groups, key=lambda g: (-g.host_ms, g.site, g.kind, g.what))


def document(trace: TraceData, join: dict[str, Any] | None) -> dict[str, Any]:
    """The trace file: the recorded trace and, when the run was joined with the findings, the
    join (which ``check --trace`` recomputes from the trace and does not read)."""
    return {
        "format": TRACE_FORMAT,
        "version": TRACE_VERSION,
        "trace": trace.to_json(),
        "join": join,
    }


def load_trace(path: Path) -> TraceData:
    """The trace in a file written by ``h2dlint trace`` (JSON); :class:`TraceFileError` when it
    cannot be read or is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TraceFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TraceFileError(f"{path} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != TRACE_FORMAT:
        raise TraceFileError(f"{path} is not a trace file (write one with `h2dlint trace -o`)")
    if data.get("version") != TRACE_VERSION:
        raise TraceFileError(
            f"{path} is a version {data.get('version')!r} trace; this h2dlint reads version "
            f"{TRACE_VERSION}"
        )
    try:
        return TraceData.from_json(data["trace"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TraceFileError(f"{path}: malformed trace ({type(exc).__name__}: {exc})") from exc

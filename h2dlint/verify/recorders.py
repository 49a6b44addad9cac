"""The hooks that record copies and syncs while a fixture runs (a ``TorchDispatchMode``, the
sync-debug warnings, event waits). Moved out of ``measure.py`` as it was."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from h2dlint.verify.copies import CopyRecord, copy_record, internal_dirs, op_arg
from h2dlint.verify.records import SYNC_DEBUG, SYNC_EVENT, SYNC_STAGED, SYNC_WARNING, SyncRecord


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

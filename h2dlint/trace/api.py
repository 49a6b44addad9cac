"""``trace``: the same interception as ``h2dlint trace``, around a block or a function.

    from h2dlint.trace import trace

    with trace("trace.json"):  # or @trace("trace.json") on a function
        serve(batch)

On exit the report is printed on stderr (``report=False``: not) and written to each output file;
``.data`` holds the trace and ``.result`` the join with the findings (None with ``lint=False``).
Without torch or a CUDA device, entering raises :class:`TraceUnavailable`.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from h2dlint.trace.events import TraceData
from h2dlint.trace.join import Join
from h2dlint.trace.recorder import BURST_MIN
from h2dlint.verify.copies import import_torch


class TraceUnavailable(RuntimeError):
    """torch is missing, or there is no CUDA device to trace on."""


def _warn(message: str) -> None:
    print(f"h2dlint trace: warning: {message}", file=sys.stderr)


class trace(contextlib.ContextDecorator):  # lower case: used like a function, `with trace():`
    def __init__(
        self,
        output: str | Path | Sequence[str | Path] | None = None,
        *,
        report: bool = True,
        lint: bool = True,
        lint_paths: Sequence[str | Path] = (),
        burst_min: int = BURST_MIN,
        profile: bool = False,
        device_types: tuple[str, ...] = ("cuda",),
    ) -> None:
        if output is None:
            outputs: list[Path] = []
        elif isinstance(output, (str, Path)):
            outputs = [Path(output)]
        else:
            outputs = [Path(o) for o in output]
        self.outputs = outputs
        self.report = report
        self.lint = lint
        self.lint_paths = [Path(p) for p in lint_paths]
        self.burst_min = burst_min
        self.profile = profile
        self.device_types = device_types
        self.data: TraceData | None = None
        self.result: Join | None = None
        self._session: Any = None

    def __enter__(self) -> trace:
        if self._session is not None:
            raise RuntimeError("this trace is already running")
        torch = import_torch()
        if torch is None:
            raise TraceUnavailable("torch is not installed")
        if "cuda" in self.device_types and not torch.cuda.is_available():
            raise TraceUnavailable("no CUDA device available (torch.cuda.is_available() is False)")
        from h2dlint.trace.session import Session

        self._session = Session(
            torch, burst_min=self.burst_min, device_types=self.device_types, profile=self.profile
        )
        self._session.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        from h2dlint.trace.finish import joined, write_reports
        from h2dlint.trace.session import project_filter

        session, self._session = self._session, None
        data = session.stop()
        if exc is not None:
            data.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        self.data = data
        if self.lint:
            torch_file = getattr(session.torch, "__file__", None)
            wanted = project_filter(session.root, torch_file)
            self.result = joined(data, wanted, _warn, self.lint_paths)
        stream = sys.stderr if self.report else None
        write_reports(data, self.result, self.outputs, stream, _warn)

"""After the traced code ran: check the files it touched, join, write the reports. Shared by the
command line and the ``trace`` context manager."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from h2dlint.trace.events import TraceData
from h2dlint.trace.join import Join, analysed_by, join
from h2dlint.trace.lint import check_files, files_to_check
from h2dlint.trace.report import RENDERERS, format_for, render_text


def joined(
    trace: TraceData,
    wanted: Callable[[str], bool],
    warn: Callable[[str], None],
    lint_paths: Sequence[Path] = (),
    extra: Sequence[str] = (),
) -> Join | None:
    """The trace joined with the findings in the files it touched (or in ``lint_paths``);
    None, with a warning, when the files cannot be checked here (libcst missing)."""
    cwd = Path.cwd()
    paths = list(lint_paths) or files_to_check(trace, wanted, extra)
    try:
        findings, analysed = check_files(paths, cwd, warn) if paths else ([], set())
    except ImportError as exc:
        warn(f"cannot check the traced files ({exc}); the report has no findings to join")
        return None

    return join(trace, findings, analysed_by(analysed, str(cwd), trace.root), str(cwd))


def write_reports(
    trace: TraceData,
    result: Join | None,
    outputs: Sequence[Path],
    stream: TextIO | None,
    error: Callable[[str], None],
) -> bool:
    """Write the report to each of ``outputs`` (format from the name: .sarif, .txt, else JSON)
    and, as text, to ``stream``; False when a file could not be written."""
    ok = True
    for path in outputs:
        text = RENDERERS[format_for(path)](trace, result)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            error(f"cannot write {path}: {exc.strerror or exc}")
            ok = False
    if stream is not None:
        stream.write(render_text(trace, result))
        stream.flush()
    return ok

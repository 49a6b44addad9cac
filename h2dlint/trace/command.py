"""``h2dlint trace``: run a program with its copies and syncs intercepted, then report.

Exit codes: the traced program's own, whatever happened in it (its exception still writes the
report); before it starts, 2 for a usage error and 3 when torch or a CUDA device is missing.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from h2dlint.trace.program import Program, UsageError, execute, parse
from h2dlint.verify.copies import import_torch

EXIT_USAGE = 2
EXIT_NO_CUDA = 3

PREFIX = "h2dlint trace"
NO_TORCH_MESSAGE = (
    f"{PREFIX}: torch is not installed; trace needs a CUDA build of torch in this interpreter"
)
NO_CUDA_MESSAGE = (
    f"{PREFIX}: no CUDA device available (torch.cuda.is_available() is False); trace watches "
    "host<->device copies and needs an NVIDIA GPU"
)


def _error(message: str) -> None:
    click.echo(f"{PREFIX}: error: {message}", err=True)


def _warn(message: str) -> None:
    click.echo(f"{PREFIX}: warning: {message}", err=True)


def cuda_problem() -> str | None:
    """Why this machine cannot trace (no torch, no CUDA device), or None."""
    torch = import_torch()
    if torch is None:
        return NO_TORCH_MESSAGE
    if not torch.cuda.is_available():
        return NO_CUDA_MESSAGE
    return None


def run_trace(
    command: Sequence[str],
    outputs: Sequence[Path] = (),
    quiet: bool = False,
    lint: bool = True,
    lint_paths: Sequence[Path] = (),
    burst_min: int = 8,
    profile: bool = False,
) -> int:
    try:
        program = parse(command)
    except UsageError as exc:
        _error(str(exc))
        return EXIT_USAGE
    problem = cuda_problem()
    if problem is not None:
        click.echo(problem, err=True)
        return EXIT_NO_CUDA
    return trace_program(program, command, outputs, quiet, lint, lint_paths, burst_min, profile)


def trace_program(
    program: Program,
    command: Sequence[str],
    outputs: Sequence[Path],
    quiet: bool,
    lint: bool,
    lint_paths: Sequence[Path],
    burst_min: int,
    profile: bool,
    device_types: tuple[str, ...] = ("cuda",),
) -> int:
    """Trace ``program`` (torch is importable); its exit code."""
    import torch

    from h2dlint.trace.finish import joined, write_reports
    from h2dlint.trace.session import Session, project_filter

    session = Session(torch, burst_min=burst_min, device_types=device_types, profile=profile)
    session.start()
    try:
        code, error = execute(program)
    finally:
        trace = session.stop()
    trace.command = list(command)
    trace.exit_code, trace.error = code, error
    result = None
    if lint:
        wanted = project_filter(session.root, getattr(torch, "__file__", None))
        extra = [str(Path(program.target).resolve())] if program.kind == "script" else []
        result = joined(trace, wanted, _warn, lint_paths, extra)
    stream = None if quiet else sys.stderr
    write_reports(trace, result, outputs, stream, _error)
    return code

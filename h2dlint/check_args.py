"""What ``h2dlint check`` was asked to do (the command-line options, as click parsed them), and
where its messages go (``-q``, ``-s``, ``-v``)."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from h2dlint.time_limit import DEFAULT_TIME_LIMIT_S

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


def split_values(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--select A,B --select C`` -> ("A", "B", "C")."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@dataclass(frozen=True)
class CheckArgs:
    paths: tuple[Path, ...] = ()
    fix: bool = False
    unsafe_fixes: bool | None = None
    fix_only: bool = False
    diff: bool = False
    show_fixes: bool = False
    exit_non_zero_on_fix: bool = False
    add_noqa: bool = False
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    min_confidence: str | None = None
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    respect_gitignore: bool = True
    stdin_filename: Path | None = None
    config_file: Path | None = None
    output_format: str = "full"
    output_file: Path | None = None
    statistics: bool = False
    show_files: bool = False
    show_settings: bool = False
    color: str = "auto"
    no_color: bool = False
    exit_zero: bool = False
    quiet: bool = False
    silent: bool = False
    verbose: bool = False
    jobs: int = 0
    time_limit: float = DEFAULT_TIME_LIMIT_S
    no_cache: bool = False
    cache_dir: Path | None = None
    no_prefilter: bool = False
    no_candidate_filter: bool = False
    trace_file: Path | None = None
    only_confirmed: bool = False


class Level(enum.IntEnum):
    SILENT = 0  # -s: nothing but the exit code (and errors that end the run)
    QUIET = 1  # -q: the findings, no summary, no warnings
    NORMAL = 2
    VERBOSE = 3  # -v: also what was checked, with which settings, and why files were skipped


@dataclass(frozen=True)
class Console:
    """Messages on stderr, as the verbosity allows. Errors always get through."""

    level: Level = Level.NORMAL

    @property
    def verbose_enabled(self) -> bool:
        return self.level >= Level.VERBOSE

    def error(self, message: str) -> None:
        click.echo(f"h2dlint: error: {message}", err=True)

    def warn(self, message: str) -> None:
        if self.level >= Level.NORMAL:
            click.echo(f"h2dlint: warning: {message}", err=True)

    def info(self, message: str) -> None:
        """A summary line on stderr (--diff, --add-noqa), hidden by -q and -s."""
        if self.level >= Level.NORMAL:
            click.echo(message, err=True)

    def verbose(self, message: str) -> None:
        if self.level >= Level.VERBOSE:
            click.echo(f"h2dlint: verbose: {message}", err=True)


def level_of(args: CheckArgs) -> Level:
    if args.silent:
        return Level.SILENT
    if args.quiet:
        return Level.QUIET
    if args.verbose:
        return Level.VERBOSE
    return Level.NORMAL


def conflicts(args: CheckArgs) -> str | None:
    """Why the options cannot go together, if they cannot."""
    flags = (("-q", args.quiet), ("-s", args.silent), ("-v", args.verbose))
    levels = [flag for flag, on in flags if on]
    if len(levels) > 1:
        return f"{' and '.join(levels)} cannot be combined: choose one verbosity"
    if args.add_noqa:
        for flag, on in (("--fix", args.fix), ("--fix-only", args.fix_only), ("--diff", args.diff)):
            if on:
                return f"--add-noqa cannot be combined with {flag}"
    if args.only_confirmed and args.trace_file is None:
        return "--only-confirmed needs --trace TRACE.json (written by `h2dlint trace -o`)"
    if args.show_files and args.show_settings:
        return "--show-files and --show-settings cannot be combined"
    return None


def color_default(stream: Any) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())

"""``h2dlint check``: from command-line options to files checked, fixed and reported."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from h2dlint import confidence, legacy_codes
from h2dlint.cache import ResultCache
from h2dlint.catalogue import known_rules
from h2dlint.cli import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, _split, _warn, color_default
from h2dlint.config import ConfigError, Overrides, SettingsResolver, find_config_file
from h2dlint.diagnostics import INTERNAL_ERROR_CODE, FixSafety
from h2dlint.discovery import Discovery, display_path, relative_to_root
from h2dlint.jobs import FileJob, Mode
from h2dlint.reporters import ReportOptions, RunSummary, render
from h2dlint.runner import RunOptions, RunResult, run

STDIN = Path("-")


def _mode(fix: bool, diff: bool, stdin: bool) -> Mode:
    if diff:
        return Mode.DIFF
    if fix:
        return Mode.STDOUT if stdin else Mode.FIX
    return Mode.CHECK


def _cache_dir(no_cache: bool, cache_dir: Path | None, cwd: Path) -> Path | None:
    if no_cache:
        return None
    if cache_dir is not None:
        return cache_dir
    env = os.environ.get("H2DLINT_CACHE_DIR")
    if env:
        return Path(env)
    config = find_config_file(cwd)
    return (config.parent if config else cwd) / ".h2dlint_cache"


def run_check(
    paths: tuple[Path, ...],
    fix: bool,
    unsafe_fixes: bool | None,
    diff: bool,
    stdin_filename: Path | None,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    exit_zero: bool,
    statistics: bool,
    output_format: str,
    output_file: Path | None,
    config_file: Path | None,
    quiet: bool,
    color: bool | None,
    jobs: int,
    no_cache: bool,
    cache_dir: Path | None,
    force_exclude: bool,
    respect_gitignore: bool,
    extend_exclude: tuple[str, ...],
    no_prefilter: bool,
    no_candidate_filter: bool = False,
    min_confidence: str | None = None,
) -> int:
    cwd = Path.cwd()
    read_stdin = STDIN in paths
    file_paths = [p for p in paths if p != STDIN] or ([] if read_stdin else [Path(".")])
    overrides = Overrides(
        select=_split(select) or None,
        extend_select=_split(extend_select),
        ignore=_split(ignore),
        unsafe_fixes=unsafe_fixes,
        extend_exclude=_split(extend_exclude),
        min_confidence=confidence.parse(min_confidence) if min_confidence else None,
    )
    mode = _mode(fix, diff, read_stdin)
    if read_stdin and fix and file_paths:
        click.echo("h2dlint: error: --fix with `-` cannot also take file paths", err=True)
        return EXIT_ERROR
    cache_path = None if read_stdin else _cache_dir(no_cache, cache_dir, cwd)
    # Opened first: it holds the rule catalogue, without which the settings would import the
    # rules (and libcst) to learn their codes.
    cache = ResultCache(cache_path, _warn) if cache_path is not None else None
    try:
        resolver = SettingsResolver(overrides, config_file, cwd, known_rules(cache))
        discovery = Discovery(
            resolver, cwd, force_exclude=force_exclude, respect_gitignore=respect_gitignore
        )
        candidates = discovery.candidates(file_paths)
        stdin_job = (
            _stdin_job(
                resolver, stdin_filename, mode, unsafe_fixes, cwd, no_prefilter, no_candidate_filter
            )
            if read_stdin
            else None
        )
    except ConfigError as exc:
        click.echo(f"h2dlint: error: {exc}", err=True)
        return EXIT_ERROR
    for warning in discovery.warnings:
        _warn(warning)
    for warning in legacy_codes.drain_notes():
        _warn(warning)
    options = RunOptions(
        mode=mode,
        unsafe_fixes=unsafe_fixes,
        jobs=jobs,
        prefilter=not no_prefilter,
        candidates=not no_candidate_filter,
    )
    result = run(candidates, options, _warn, stdin_job, cache)
    return _report(
        result,
        mode,
        output_format,
        output_file,
        statistics,
        quiet,
        color,
        unsafe_fixes,
        exit_zero,
        cwd,
    )


def _stdin_job(
    resolver: SettingsResolver,
    stdin_filename: Path | None,
    mode: Mode,
    unsafe_fixes: bool | None,
    cwd: Path,
    no_prefilter: bool,
    no_candidate_filter: bool,
) -> FileJob:
    name = stdin_filename or Path("-")
    settings = resolver.for_directory((cwd / name).parent)
    display = display_path(name, cwd) if stdin_filename else "-"
    data = sys.stdin.buffer.read()
    return FileJob(
        path=str(name),
        display=display,
        data=data,
        rules=settings.rules_for(relative_to_root(cwd / name, settings)),
        mode=mode,
        unsafe=settings.unsafe_fixes if unsafe_fixes is None else unsafe_fixes,
        prefilter=not no_prefilter,
        analysis=settings.analysis,
        candidates=not no_candidate_filter,
        min_confidence=settings.min_confidence,
    )


def _report(
    result: RunResult,
    mode: Mode,
    output_format: str,
    output_file: Path | None,
    statistics: bool,
    quiet: bool,
    color: bool | None,
    unsafe_fixes: bool | None,
    exit_zero: bool,
    cwd: Path,
) -> int:
    internal_error = any(f.code == INTERNAL_ERROR_CODE for f in result.findings)
    if mode is Mode.DIFF:
        for diff in result.diffs:
            click.echo(diff, nl=False)
        would = sum(result.fixed_by_code.values())
        if not quiet:
            noun = "finding" if would == 1 else "findings"
            click.echo(f"Would fix {would} {noun}." if would else "No fixes available.", err=True)
        for finding in result.findings:
            if finding.code.startswith("E9"):
                click.echo(
                    f"{finding.path}:{finding.start.row}:{finding.start.column}: "
                    f"{finding.code} {finding.message}",
                    err=True,
                )
        if internal_error:
            return EXIT_ERROR
        return EXIT_FINDINGS if would and not exit_zero else EXIT_OK

    for output in result.outputs:
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    summary = RunSummary(
        files_checked=result.files_checked,
        fixed_by_code=dict(result.fixed_by_code),
        hidden_unsafe_fixes=sum(
            1
            for f in result.findings
            if f.fix is not None and f.fix.safety is FixSafety.UNSAFE and not unsafe_fixes
        ),
        hidden_by_confidence=result.hidden_by_confidence,
    )
    stream_to_stderr = mode is Mode.STDOUT
    use_color = (
        bool(color)
        if color is not None
        else (output_file is None and color_default(sys.stderr if stream_to_stderr else sys.stdout))
    )
    options = ReportOptions(
        color=use_color and output_format == "text",
        cwd=cwd,
        statistics=statistics,
        unsafe_fixes=bool(unsafe_fixes),
        quiet=quiet,
    )
    text = render(output_format, result.findings, summary, options)
    if output_file is not None:
        try:
            output_file.parent.mkdir(parents=True, exist_ok=True)
            output_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            click.echo(f"h2dlint: error: cannot write {output_file}: {exc.strerror}", err=True)
            return EXIT_ERROR
    elif text:
        # click strips ANSI codes off a TTY unless told the colour was asked for.
        click.echo(text, nl=False, err=stream_to_stderr, color=options.color)
    if internal_error:
        return EXIT_ERROR
    return EXIT_FINDINGS if result.findings and not exit_zero else EXIT_OK

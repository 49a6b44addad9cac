"""``h2dlint check``: from command-line options to files checked, fixed and reported."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from h2dlint import confidence, legacy_codes
from h2dlint.cache import ResultCache
from h2dlint.catalogue import known_rules
from h2dlint.check_args import EXIT_ERROR, CheckArgs, Console, conflicts, level_of, split_values
from h2dlint.check_info import explain_nothing_checked, log_plan, show_files, show_settings
from h2dlint.check_report import report
from h2dlint.collector import collector_off
from h2dlint.config import ConfigError, Overrides, SettingsResolver, find_config_file
from h2dlint.discovery import Candidate, Discovery, display_path, relative_to_root
from h2dlint.jobs import FileJob, Mode
from h2dlint.reporters.text import plural
from h2dlint.runner import RunOptions, run

STDIN = Path("-")


def _mode(args: CheckArgs, stdin: bool) -> Mode:
    if args.add_noqa:
        return Mode.ADD_NOQA
    if args.diff:
        return Mode.DIFF
    if args.fix or args.fix_only:
        return Mode.STDOUT if stdin else Mode.FIX
    return Mode.CHECK


def _cache_dir(args: CheckArgs, cwd: Path) -> Path | None:
    """Where the cache lives: --cache-dir (or $H2DLINT_CACHE_DIR), else beside the nearest
    configuration file, else in the current directory; None with --no-cache."""
    if args.no_cache:
        return None
    if args.cache_dir is not None:
        return args.cache_dir
    config = find_config_file(cwd)
    return (config.parent if config else cwd) / ".h2dlint_cache"


def run_check(args: CheckArgs) -> int:
    console = Console(level_of(args))
    problem = conflicts(args)
    cwd = Path.cwd()
    read_stdin = STDIN in args.paths
    file_paths = [p for p in args.paths if p != STDIN] or ([] if read_stdin else [Path(".")])
    if problem is None and read_stdin and (args.fix or args.fix_only) and file_paths:
        problem = "--fix with `-` cannot also take file paths"
    if problem is None and read_stdin and args.add_noqa:
        problem = "--add-noqa writes comments into files; it cannot read `-`"
    if problem is not None:
        console.error(problem)
        return EXIT_ERROR
    trace = None
    if args.trace_file is not None:
        from h2dlint.trace.events import TraceFileError, load_trace

        try:
            trace = load_trace(args.trace_file)
        except TraceFileError as exc:
            console.error(str(exc))
            return EXIT_ERROR
    overrides = Overrides(
        select=split_values(args.select) or None,
        extend_select=split_values(args.extend_select),
        ignore=split_values(args.ignore),
        unsafe_fixes=args.unsafe_fixes,
        extend_exclude=split_values(args.extend_exclude),
        exclude=split_values(args.exclude) or None,
        cwd=cwd,
        min_confidence=confidence.parse(args.min_confidence) if args.min_confidence else None,
    )
    mode = _mode(args, read_stdin)
    inspecting = args.show_files or args.show_settings
    cache_path = None if read_stdin or inspecting else _cache_dir(args, cwd)
    # Opened first: it holds the rule catalogue, without which the settings would import the
    # rules (and libcst) to learn their codes.
    cache = ResultCache(cache_path, console.warn) if cache_path is not None else None
    try:
        resolver = SettingsResolver(overrides, args.config_file, cwd, known_rules(cache))
        discovery = Discovery(
            resolver,
            cwd,
            force_exclude=args.force_exclude,
            respect_gitignore=args.respect_gitignore,
        )
        candidates = discovery.candidates(file_paths)
        stdin_job = _stdin_job(resolver, args, mode, cwd) if read_stdin else None
    except ConfigError as exc:
        console.error(str(exc))
        return EXIT_ERROR
    for warning in discovery.warnings:
        console.warn(warning)
    for warning in legacy_codes.drain_notes():
        console.warn(warning)
    if args.show_settings:
        return show_settings(args, resolver, candidates, file_paths, cwd)
    if not candidates and not read_stdin:
        explain_nothing_checked(discovery.walked, console)
    if args.show_files:
        return show_files(args, candidates, cwd, console)
    log_plan(console, candidates, discovery.walked, cache_path, cwd)
    options = RunOptions(
        mode=mode,
        unsafe_fixes=args.unsafe_fixes,
        jobs=args.jobs,
        prefilter=not args.no_prefilter,
        candidates=not args.no_candidate_filter,
        time_limit=args.time_limit,
    )
    started = time.monotonic()
    result = run(candidates, options, console.warn, stdin_job, cache)
    console.verbose(
        f"checked {plural(result.files_checked, 'file')} in {time.monotonic() - started:.2f} s "
        f"({result.files_parsed} parsed; the others answered by the cache or the prefilter)"
    )
    if trace is not None:
        from h2dlint.trace.marks import mark_findings, only_confirmed

        analysed = [c.path for c in candidates]
        result.findings, summary = mark_findings(result.findings, trace, cwd, analysed)
        if args.only_confirmed:
            result.findings = only_confirmed(result.findings)
        console.info(summary)
    with collector_off():  # what the run made is all alive: a collection would only walk it
        return report(result, args, mode, _unsafe_paths(candidates, stdin_job), cwd, console)


def _unsafe_paths(candidates: list[Candidate], stdin_job: FileJob | None) -> frozenset[str]:
    """The files (as findings name them) whose effective settings enable unsafe fixes: the
    configuration's `unsafe-fixes`, unless --unsafe-fixes or --no-unsafe-fixes says otherwise."""
    paths = {c.display for c in candidates if c.settings.unsafe_fixes}
    if stdin_job is not None and stdin_job.unsafe:
        paths.add(stdin_job.display)
    return frozenset(paths)


def _stdin_job(resolver: SettingsResolver, args: CheckArgs, mode: Mode, cwd: Path) -> FileJob:
    name = args.stdin_filename or Path("-")
    settings = resolver.for_directory((cwd / name).parent)
    display = display_path(name, cwd) if args.stdin_filename else "-"
    data = sys.stdin.buffer.read()
    return FileJob(
        path=str(name),
        display=display,
        data=data,
        rules=settings.rules_for(relative_to_root(cwd / name, settings)),
        mode=mode,
        unsafe=settings.unsafe_fixes,
        prefilter=not args.no_prefilter,
        analysis=settings.job_analysis,
        candidates=not args.no_candidate_filter,
        min_confidence=settings.min_confidence,
        time_limit=args.time_limit,
    )

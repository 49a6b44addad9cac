"""What ``h2dlint check`` prints once the files are checked, and the exit code.

* check and ``--fix``: the report in the chosen format (to ``--output-file`` if given), with
  ``--show-fixes`` the fixes applied per file before the summary;
* ``--diff``: the diff on stdout, what it would fix on stderr;
* ``--fix-only``: what was fixed, and only the findings that are errors (files that could not be
  read, parsed or written);
* ``--add-noqa``: how many comments were added, and the report of what is left.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import click

from h2dlint.check_args import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    CheckArgs,
    Console,
    Level,
    color_default,
)
from h2dlint.diagnostics import FILE_DIAGNOSTIC_CODES, INTERNAL_ERROR_CODE, Finding, FixSafety
from h2dlint.jobs import Mode
from h2dlint.reporters import ReportOptions, RunSummary, render
from h2dlint.reporters.text import plural, rule_names
from h2dlint.runner import RunResult

TEXT_FORMATS = ("full", "concise", "text")


def report(
    result: RunResult,
    args: CheckArgs,
    mode: Mode,
    unsafe_paths: frozenset[str],
    cwd: Path,
    console: Console,
) -> int:
    """Print what ``result`` says as ``args`` ask, and return the exit code."""
    hidden = _hidden_unsafe_fixes(result.findings, unsafe_paths)
    if mode is Mode.DIFF:
        return _report_diff(result, args, hidden, console)
    for output in result.outputs:  # the fixed source of `--fix -`, whatever the verbosity
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    if args.fix_only:
        return _report_fix_only(result, args, hidden, console, bool(result.outputs))
    if mode is Mode.ADD_NOQA:
        _report_noqa(result, console)
    code = _report_findings(result, args, mode, hidden, unsafe_paths, cwd, console)
    fixed = bool(result.fixed_by_code)
    if code == EXIT_OK and args.exit_non_zero_on_fix and fixed and not args.exit_zero:
        return EXIT_FINDINGS
    return code


def _report_noqa(result: RunResult, console: Console) -> None:
    if result.noqa_added:
        directives = plural(result.noqa_added, "noqa directive")
        console.info(f"Added {directives} in {plural(result.noqa_files, 'file')}.")
    failed = {f.path for f in result.findings if f.code in FILE_DIAGNOSTIC_CODES}
    left = sum(1 for f in result.findings if f.path not in failed)
    if left:
        console.warn(
            f"{plural(left, 'finding')} could not be suppressed where reported: the line ends "
            "inside a string or with a backslash, where no comment can go"
        )


def _hidden_unsafe_fixes(findings: Sequence[Finding], unsafe_paths: frozenset[str]) -> int:
    """Findings with an unsafe fix that their file's settings do not apply."""
    return sum(
        1
        for f in findings
        if f.fix is not None
        and f.fix.edits
        and f.fix.safety is FixSafety.UNSAFE
        and f.path not in unsafe_paths
    )


def _hidden_note(hidden: int) -> str:
    fixes = plural(hidden, "hidden fix", "hidden fixes")
    return f"{fixes} can be enabled with the `--unsafe-fixes` option"


def _internal_error(findings: Sequence[Finding]) -> bool:
    return any(f.code == INTERNAL_ERROR_CODE for f in findings)


def _echo_file_errors(findings: Sequence[Finding], console: Console) -> bool:
    """Print, on stderr, the findings that are errors about a file (E9xx); whether any."""
    errors = [f for f in findings if f.code in FILE_DIAGNOSTIC_CODES]
    if console.level > Level.SILENT:
        for f in errors:
            click.echo(f"{f.path}:{f.start.row}:{f.start.column}: {f.code} {f.message}", err=True)
    return bool(errors)


def _report_diff(result: RunResult, args: CheckArgs, hidden: int, console: Console) -> int:
    if console.level > Level.SILENT:
        for diff in result.diffs:
            click.echo(diff, nl=False)
    would = sum(result.fixed_by_code.values())
    if args.show_fixes and result.fixed_by_file:
        console.info(fix_table(result.fixed_by_file, "Would fix"))
    note = f" ({_hidden_note(hidden)})" if hidden else ""
    if would:
        console.info(f"Would fix {plural(would, 'finding')}{note}.")
    else:
        console.info(f"No fixes available{note}.")
    _echo_file_errors(result.findings, console)
    if _internal_error(result.findings):
        return EXIT_ERROR
    return EXIT_FINDINGS if would and not args.exit_zero else EXIT_OK


def _report_fix_only(
    result: RunResult, args: CheckArgs, hidden: int, console: Console, stream_to_stderr: bool
) -> int:
    """--fix-only: what was fixed (text formats), and the file errors; no findings."""
    fixed = sum(result.fixed_by_code.values())
    if args.output_format in TEXT_FORMATS and console.level >= Level.NORMAL:
        lines = []
        if args.show_fixes and result.fixed_by_file:
            lines.append(fix_table(result.fixed_by_file, "Fixed"))
        note = f" ({_hidden_note(hidden)})" if hidden else ""
        if fixed:
            lines.append(f"Fixed {plural(fixed, 'finding')}{note}.")
        elif hidden:
            lines.append(f"No fixes applied{note}.")
        for line in lines:
            click.echo(line, err=stream_to_stderr)
    file_errors = _echo_file_errors(result.findings, console)
    if _internal_error(result.findings):
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
    if file_errors or (args.exit_non_zero_on_fix and fixed):
        return EXIT_FINDINGS
    return EXIT_OK


def _report_findings(
    result: RunResult,
    args: CheckArgs,
    mode: Mode,
    hidden: int,
    unsafe_paths: frozenset[str],
    cwd: Path,
    console: Console,
) -> int:
    summary = RunSummary(
        files_checked=result.files_checked,
        fixed_by_code=dict(result.fixed_by_code),
        hidden_unsafe_fixes=hidden,
        hidden_by_confidence=result.hidden_by_confidence,
    )
    stream_to_stderr = mode is Mode.STDOUT
    options = ReportOptions(
        color=_use_color(args, sys.stderr if stream_to_stderr else sys.stdout)
        and args.output_format in TEXT_FORMATS,
        cwd=cwd,
        statistics=args.statistics,
        unsafe_fixes=bool(args.unsafe_fixes),
        quiet=console.level < Level.NORMAL,
        unsafe_fix_paths=unsafe_paths,
    )
    text = render(args.output_format, result.findings, summary, options)
    if args.show_fixes and result.fixed_by_file and not options.quiet:
        text = _with_fix_table(text, result, args, summary, options)
    if args.output_file is not None:
        try:
            args.output_file.parent.mkdir(parents=True, exist_ok=True)
            args.output_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            console.error(f"cannot write {args.output_file}: {exc.strerror}")
            return EXIT_ERROR
    elif text and console.level > Level.SILENT:
        # click strips ANSI codes off a TTY unless told the colour was asked for.
        click.echo(text, nl=False, err=stream_to_stderr, color=options.color)
    if _internal_error(result.findings):
        return EXIT_ERROR
    return EXIT_FINDINGS if result.findings and not args.exit_zero else EXIT_OK


def _use_color(args: CheckArgs, stream: object) -> bool:
    choice = "never" if args.no_color else args.color
    if choice != "auto":
        return choice == "always"
    return args.output_file is None and color_default(stream)


def _with_fix_table(
    text: str, result: RunResult, args: CheckArgs, summary: RunSummary, options: ReportOptions
) -> str:
    """The text report with the fixes applied listed between the findings and the summary,
    where Ruff puts them; the other formats are for tools and stay as they are."""
    if args.output_format not in TEXT_FORMATS or args.statistics:
        return text
    quiet = replace(options, quiet=True)
    findings_only = render(args.output_format, result.findings, summary, quiet)
    table = fix_table(result.fixed_by_file, "Fixed") + "\n"
    if not text.startswith(findings_only):
        return text + table
    rest = text[len(findings_only) :]
    if findings_only and not findings_only.endswith("\n\n"):
        findings_only += "\n"
    return findings_only + table + "\n" + rest


def fix_table(fixed_by_file: Mapping[str, Mapping[str, int]], verb: str) -> str:
    """The fixes per file and rule, as Ruff's --show-fixes lists them: a line per file, then
    one per rule with its count, the most frequent first."""
    total = sum(sum(codes.values()) for codes in fixed_by_file.values())
    names = rule_names()
    width = len(str(max(count for codes in fixed_by_file.values() for count in codes.values())))
    lines = [f"{verb} {plural(total, 'finding')}:"]
    for path, codes in sorted(fixed_by_file.items()):
        lines.append(f"- {path}:")
        for code, count in sorted(codes.items(), key=lambda item: (-item[1], item[0])):
            name = names.get(code)
            lines.append(f"    {count:>{width}} \u00d7 {code}" + (f" ({name})" if name else ""))
    return "\n".join(lines)

"""The command line.

``h2dlint PATH...`` is shorthand for ``h2dlint check PATH...``: any first argument that is not a
subcommand (or ``--help``/``--version``) is taken as the start of a check. A path whose name is a
subcommand is reachable as ``./name`` or through ``check``.

This module imports only click at start-up; libcst and the engine load when a command runs, so
``h2dlint --version`` and ``--help`` stay fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from h2dlint import __version__
from h2dlint.check_args import EXIT_ERROR, EXIT_INTERRUPTED
from h2dlint.reporters import FORMATS
from h2dlint.time_limit import DEFAULT_TIME_LIMIT_S

COLORS = ("auto", "always", "never")
GROUP_FLAGS = ("--help", "-h", "--version")


class DefaultCheckGroup(click.Group):
    """A group whose first argument, when not a subcommand, starts ``check``. Its help shows
    the check options too: `h2dlint --fix src/` is how it is used."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in GROUP_FLAGS):
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "[OPTIONS] [PATH]...")
        formatter.write_usage(ctx.command_path, "COMMAND [ARGS]...", prefix="       ")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_commands(ctx, formatter)
        check = self.commands["check"]
        check_ctx = click.Context(check, info_name="check", parent=ctx)
        records = [
            record
            for param in check.get_params(check_ctx)
            if isinstance(param, click.Option) and (record := param.get_help_record(check_ctx))
        ]
        records += [
            record
            for param in self.get_params(ctx)
            if param.name == "version" and (record := param.get_help_record(ctx))
        ]
        with formatter.section("Options (of check, the default command)"):
            formatter.write_dl(records)


def _fail(message: str) -> NoReturn:
    click.echo(f"h2dlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@click.group(cls=DefaultCheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="h2dlint", message="%(prog)s %(version)s")
def main() -> None:
    """h2dlint finds host-to-device copy and sync mistakes in PyTorch code.

    `h2dlint PATH...` is short for `h2dlint check PATH...`: `h2dlint --fix src/` fixes what it
    safely can under src/ and reports the rest.
    """


# Set once a ``check`` has written its output and saved its cache: the process may then end
# without the interpreter's teardown (:func:`entry`).
_CHECKED = False


def entry() -> None:
    """The command's entry point (``h2dlint``, ``python -m h2dlint``): :func:`main`; after a
    ``check`` the process then ends at once, as its forked workers do, without the
    interpreter's teardown, which frees every object the run made one by one (the libcst trees
    the project index kept, the rules and libcst's modules): a quarter of the CPU of a
    pre-commit run in one process. Its output is flushed first; where that fails (a closed
    pipe), or after any other command, the interpreter ends as usual."""
    try:
        main()
    except SystemExit as exc:
        code = exc.code
        if _CHECKED and (code is None or isinstance(code, int)) and _flushed():
            os._exit(code or 0)
        raise


def _flushed() -> bool:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return False
    return True


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
# -- fixing ------------------------------------------------------------------------------------
@click.option("--fix/--no-fix", default=False, help="Write safe fixes to the files.")
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Also apply (with --fix) and show fixes marked unsafe. Default: the configuration's "
    "`unsafe-fixes`.",
)
@click.option(
    "--fix-only",
    is_flag=True,
    help="Apply fixes (implies --fix) and report nothing about the findings left; exit 0.",
)
@click.option("--diff", is_flag=True, help="Print the diff --fix would write; write nothing.")
@click.option("--show-fixes", is_flag=True, help="List the findings fixed, per file.")
@click.option(
    "--exit-non-zero-on-fix",
    is_flag=True,
    help="Exit 1 when a fix was applied, even if none remain.",
)
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Add a `# noqa: CODE` comment to every line with a finding, to adopt h2dlint in an "
    "existing codebase.",
)
# -- rules -------------------------------------------------------------------------------------
@click.option(
    "--select",
    multiple=True,
    metavar="RULES",
    help="Rules to enable: codes, prefixes, names, or ALL.",
)
@click.option(
    "--extend-select",
    multiple=True,
    metavar="RULES",
    help="Rules to enable on top of the selection.",
)
@click.option("--ignore", multiple=True, metavar="RULES", help="Rules to disable.")
@click.option(
    "--min-confidence",
    "--confidence",
    "min_confidence",
    type=click.Choice(("high", "medium"), case_sensitive=False),
    default=None,
    help="Show (and fix) only findings at least this sure (default: medium, i.e. all).",
)
# -- files -------------------------------------------------------------------------------------
@click.option(
    "--exclude",
    multiple=True,
    metavar="PATTERN",
    help="Exclude patterns, replacing the configuration's `exclude` (and the defaults).",
)
@click.option(
    "--extend-exclude",
    multiple=True,
    metavar="PATTERN",
    help="Exclude patterns, on top of `exclude`.",
)
@click.option("--force-exclude", is_flag=True, help="Apply exclusions to named files too.")
@click.option(
    "--respect-gitignore/--no-respect-gitignore", default=True, help="Skip .gitignore'd files."
)
@click.option("--stdin-filename", type=click.Path(path_type=Path), help="Name of stdin input.")
@click.option("--config", "config_file", type=click.Path(path_type=Path), help="Config file.")
# -- output ------------------------------------------------------------------------------------
@click.option(
    "--output-format",
    type=click.Choice(FORMATS),
    default="full",
    show_default=True,
    envvar="H2DLINT_OUTPUT_FORMAT",
    show_envvar=True,
    help="How to print findings (full: with the source line; concise: one line each).",
)
@click.option(
    "-o",
    "--output-file",
    type=click.Path(path_type=Path),
    envvar="H2DLINT_OUTPUT_FILE",
    show_envvar=True,
    help="Write the report to this file instead of stdout.",
)
@click.option("--statistics", is_flag=True, help="Print counts per rule instead of findings.")
@click.option(
    "--show-files", is_flag=True, help="List the files that would be checked; check none."
)
@click.option(
    "--show-settings", is_flag=True, help="Print the settings of the first file; check none."
)
@click.option(
    "--color",
    type=click.Choice(COLORS),
    default="auto",
    show_default=True,
    help="Colour the text output (auto: on a terminal, unless NO_COLOR; FORCE_COLOR forces it).",
)
@click.option("--no-color", is_flag=True, hidden=True, help="Same as --color never.")
@click.option("-e", "--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option(
    "-q", "--quiet", is_flag=True, help="Print the findings only: no summary, no warnings."
)
@click.option("-s", "--silent", is_flag=True, help="Print nothing; the exit code tells the result.")
@click.option(
    "-v", "--verbose", is_flag=True, help="Log the files, settings and cache used, on stderr."
)
# -- runtime ----------------------------------------------------------------------------------
@click.option(
    "--trace",
    "trace_file",
    type=click.Path(path_type=Path),
    help="A trace file (`h2dlint trace -o trace.json`): mark each finding confirmed, "
    "contradicted or not reached by that run.",
)
@click.option(
    "--only-confirmed",
    is_flag=True,
    help="With --trace: report only the findings the trace confirmed.",
)
# -- running -----------------------------------------------------------------------------------
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Processes (0: all).")
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0),
    default=DEFAULT_TIME_LIMIT_S,
    envvar="H2DLINT_TIME_LIMIT",
    show_envvar=True,
    show_default=True,
    metavar="SECONDS",
    help="CPU time checking one file may take; past it the file is reported as not checked "
    "and the run goes on (0: no limit).",
)
@click.option(
    "-n",
    "--no-cache",
    is_flag=True,
    envvar="H2DLINT_NO_CACHE",
    show_envvar=True,
    help="Neither read nor write the result cache.",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    envvar="H2DLINT_CACHE_DIR",
    show_envvar=True,
    help="Cache directory.",
)
@click.option("--no-prefilter", is_flag=True, hidden=True, help="Parse every file (testing).")
@click.option(
    "--no-candidate-filter",
    is_flag=True,
    hidden=True,
    help="Prefilter on bytes only, not on the ast's candidates (testing).",
)
def check_command(**kwargs: Any) -> None:
    """Check PATHS (files or directories; `-` reads stdin). With no path, check `.`.

    A file named here is always checked (unless --force-exclude and it is excluded); a
    directory is walked, skipping what `exclude` and .gitignore files leave out.
    """
    from h2dlint.check_args import CheckArgs
    from h2dlint.dataclass_code import kept

    with kept():  # the command's modules define dataclasses (h2dlint.dataclass_code)
        from h2dlint.check_command import run_check

    global _CHECKED
    try:
        code = run_check(CheckArgs(**kwargs))
    except KeyboardInterrupt:
        click.echo("h2dlint: interrupted", err=True)
        code = EXIT_INTERRUPTED
    else:
        _CHECKED = True
    sys.exit(code)


@main.command("verify")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--output-format",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="How to print the report.",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=None,
    help="Timed runs per side (default: the fixture's REPEATS, else 30).",
)
@click.option("--device", default="cuda", show_default=True, help="The CUDA device to measure on.")
def verify_command(
    paths: tuple[Path, ...], output_format: str, repeats: int | None, device: str
) -> None:
    """Run before/after fixtures on a CUDA GPU and check, measured, that the fix works.

    PATHS: two fixture files (before, after), or directories holding before.py and after.py (or
    subdirectories that do, like fixtures/). Needs torch: pip install '.[verify]' from a checkout.
    Exit 0: every pair passes; 1: a pair fails; 2: usage or fixture error; 3: no CUDA device.
    """
    from h2dlint.verify.command import run_verify

    try:
        code = run_verify(paths, output_format=output_format, repeats=repeats, device=device)
    except KeyboardInterrupt:
        click.echo("h2dlint: interrupted", err=True)
        code = EXIT_INTERRUPTED
    sys.exit(code)


@main.command(
    "trace",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option(
    "-o",
    "--output-file",
    "outputs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Write the report here too (repeatable): .sarif for SARIF, .txt for text, else JSON "
    "(the trace file `check --trace` reads).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print no report on stderr.")
@click.option("--no-lint", is_flag=True, help="Do not check the traced files; no join.")
@click.option(
    "--lint-path",
    "lint_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Check these files or directories for the join (default: the project files the run "
    "touched, below the current directory).",
)
@click.option(
    "--burst-min",
    type=click.IntRange(min=2),
    default=8,
    show_default=True,
    help="Copies from one call site in a row that make a per-item burst.",
)
@click.option(
    "--profile",
    is_flag=True,
    help="Also count memcpy kinds with the torch profiler over the whole run (slower).",
)
def trace_command(
    command: tuple[str, ...],
    outputs: tuple[Path, ...],
    quiet: bool,
    no_lint: bool,
    lint_paths: tuple[Path, ...],
    burst_min: int,
    profile: bool,
) -> None:
    """Run a program with its host<->device copies and syncs intercepted, and report them by
    call site, joined with the findings in the files it ran.

    COMMAND: `-- python script.py ARGS`, `-- python -m module ARGS` or `-- python -c CODE`. The
    program runs in this interpreter; its stdout, stderr and exit code pass through, and the
    report goes to stderr (and to each --output-file). Before the program starts: exit 2 for a
    usage error, 3 without torch or a CUDA device. Details: docs/trace.md.
    """
    from h2dlint.trace.command import run_trace

    code = run_trace(
        command,
        outputs=outputs,
        quiet=quiet,
        lint=not no_lint,
        lint_paths=lint_paths,
        burst_min=burst_min,
        profile=profile,
    )
    sys.exit(code)


@main.command("rule")
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@click.option("--output-format", type=click.Choice(("text", "json")), default="text")
def rule_command(code: str | None, show_all: bool, output_format: str) -> None:
    """Print the documentation of rule CODE, or list all rules with --all."""
    import json

    from h2dlint.registry import all_rules, get_rule

    if show_all == (code is not None):
        _fail("give either a rule code or --all")
    if show_all:
        rules = list(all_rules().values())
        if output_format == "json":
            click.echo(json.dumps([_rule_info(rule) for rule in rules], indent=2))
            return
        for rule in rules:
            safety = "" if rule.fix_safety.value == "none" else rule.fix_safety.value
            click.echo(f"{rule.code}  {rule.name:<40} {safety}".rstrip())
        return
    assert code is not None
    found = get_rule(code)
    if found is None:
        _fail(f"unknown rule {code!r}; `h2dlint rule --all` lists them")
    if output_format == "json":
        click.echo(json.dumps(_rule_info(found), indent=2))
    else:
        click.echo(found.documentation(), nl=False)


def _rule_info(rule: Any) -> dict[str, Any]:
    return {
        "code": rule.code,
        "name": rule.name,
        "message": rule.message,
        "summary": rule.summary(),
        "fix_safety": rule.fix_safety.value,
        "url": rule.url(),
        "documentation": rule.documentation(),
    }

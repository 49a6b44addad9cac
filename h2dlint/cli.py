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

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

FORMATS = ("text", "json", "github", "sarif")
GROUP_FLAGS = ("--help", "-h", "--version")


class DefaultCheckGroup(click.Group):
    """A group whose first argument, when not a subcommand, starts ``check``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in GROUP_FLAGS):
            args = ["check", *args]
        return super().parse_args(ctx, args)


def _fail(message: str) -> NoReturn:
    click.echo(f"h2dlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _warn(message: str) -> None:
    click.echo(f"h2dlint: warning: {message}", err=True)


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--select A,B --select C`` -> ("A", "B", "C")."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@click.group(cls=DefaultCheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="h2dlint", message="%(prog)s %(version)s")
def main() -> None:
    """h2dlint finds host-to-device copy and sync mistakes in PyTorch code.

    `h2dlint PATH...` is short for `h2dlint check PATH...`.
    """


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--fix/--no-fix", default=False, help="Write safe fixes to the files.")
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Also apply (with --fix) and show fixes marked unsafe.",
)
@click.option("--diff", is_flag=True, help="Print the diff --fix would write; write nothing.")
@click.option("--stdin-filename", type=click.Path(path_type=Path), help="Name of stdin input.")
@click.option("--select", multiple=True, help="Rules to enable: codes, prefixes, names, or ALL.")
@click.option("--extend-select", multiple=True, help="Rules to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Rules to disable.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option(
    "--min-confidence",
    type=click.Choice(("high", "medium"), case_sensitive=False),
    default=None,
    help="Show (and fix) only findings at least this sure (default: medium, i.e. all).",
)
@click.option("--statistics", is_flag=True, help="Print counts per rule instead of findings.")
@click.option(
    "--output-format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="How to print findings.",
)
@click.option("--output-file", type=click.Path(path_type=Path), help="Write findings here.")
@click.option("--config", "config_file", type=click.Path(path_type=Path), help="Config file.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("--color/--no-color", default=None, help="Colour output (default: on a TTY).")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Processes (0: all).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option("--cache-dir", type=click.Path(path_type=Path), help="Cache directory.")
@click.option("--force-exclude", is_flag=True, help="Apply exclusions to named files too.")
@click.option(
    "--respect-gitignore/--no-respect-gitignore", default=True, help="Skip .gitignore'd files."
)
@click.option("--extend-exclude", multiple=True, help="More exclude patterns.")
@click.option("--no-prefilter", is_flag=True, hidden=True, help="Parse every file (testing).")
@click.option(
    "--no-candidate-filter",
    is_flag=True,
    hidden=True,
    help="Prefilter on bytes only, not on the ast's candidates (testing).",
)
def check_command(**kwargs: Any) -> None:
    """Check PATHS (files or directories; `-` reads stdin). With no path, check `.`."""
    from h2dlint.check_command import run_check

    try:
        code = run_check(**kwargs)
    except KeyboardInterrupt:
        click.echo("h2dlint: interrupted", err=True)
        code = EXIT_INTERRUPTED
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
    subdirectories that do, like fixtures/). Needs torch: pip install 'h2dlint[verify]'.
    Exit 0: every pair passes; 1: a pair fails; 2: usage or fixture error; 3: no CUDA device.
    """
    from h2dlint.verify.command import run_verify

    try:
        code = run_verify(paths, output_format=output_format, repeats=repeats, device=device)
    except KeyboardInterrupt:
        click.echo("h2dlint: interrupted", err=True)
        code = EXIT_INTERRUPTED
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
    rule = get_rule(code)
    if rule is None:
        _fail(f"unknown rule {code!r}; `h2dlint rule --all` lists them")
    if output_format == "json":
        click.echo(json.dumps(_rule_info(rule), indent=2))
    else:
        click.echo(rule.documentation(), nl=False)


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


def color_default(stream: Any) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())

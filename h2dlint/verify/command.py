"""``h2dlint verify``: from paths to measured pairs, verdicts, a report and an exit code.

Exit codes: 0 every pair passes, 1 a pair fails, 2 usage or fixture-contract error, 3 no CUDA
device (or torch not installed). Paths and fixtures are checked before CUDA, so a fixture's
contract can be checked on any machine with torch.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from h2dlint.verify.copies import import_torch
from h2dlint.verify.fixtures import (
    Fixture,
    FixtureError,
    FixturePair,
    discover_pairs,
    load_fixture,
    pair_options,
)
from h2dlint.verify.measure import Harness
from h2dlint.verify.records import DEFAULT_REPEATS, PairMeasurement
from h2dlint.verify.report import PairOutcome, render
from h2dlint.verify.verdict import judge_pair

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_NO_CUDA = 3

PREFIX = "h2dlint verify"
NO_CUDA_MESSAGE = (
    f"{PREFIX}: no CUDA device available (torch.cuda.is_available() is False); "
    "verify needs an NVIDIA GPU"
)
# No release of h2dlint is published, so the message names torch itself, and the extra only as
# a checkout installs it.
NO_TORCH_MESSAGE = (
    f"{PREFIX}: torch is not installed; verify needs it: install a CUDA build of torch "
    "(in a checkout of h2dlint: pip install '.[verify]')"
)


def _error(message: str) -> None:
    click.echo(f"{PREFIX}: error: {message}", err=True)


def _progress(message: str) -> None:
    if sys.stderr.isatty():
        click.echo(f"{PREFIX}: {message}", err=True)


def _device_error(torch: Any, device: str) -> str | None:
    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError, TypeError) as exc:
        return f"--device {device!r} is not a device: {exc}"
    if parsed.type != "cuda":
        return (
            f"--device {device!r}: verify measures CUDA copies; give a CUDA device (cuda, cuda:1)"
        )
    return None


def _measure(
    harness: Harness, pair: FixturePair, before: Fixture, after: Fixture, repeats: int | None
) -> PairOutcome:
    options = pair_options(before, after)
    count = repeats or options.repeats or DEFAULT_REPEATS
    _progress(f"measuring {pair.name} ({count} repeats)")
    try:
        measurement = harness.measure_pair(before, after, count)
    except Exception as exc:
        measurement = PairMeasurement(
            None, None, error=f"measuring failed: {type(exc).__name__}: {exc}"
        )
    return PairOutcome(pair, options, measurement, judge_pair(measurement, options))


def run_verify(
    paths: Sequence[Path],
    output_format: str = "text",
    repeats: int | None = None,
    device: str = "cuda",
) -> int:
    """Measure each before/after pair under ``paths`` on ``device``, print the report, and return
    the exit code."""
    if repeats is not None and repeats < 1:
        _error("--repeats must be at least 1")
        return EXIT_USAGE
    try:
        pairs = discover_pairs([Path(p) for p in paths])
    except FixtureError as exc:
        _error(str(exc))
        return EXIT_USAGE
    torch = import_torch()
    if torch is None:
        click.echo(NO_TORCH_MESSAGE, err=True)
        return EXIT_NO_CUDA
    problem = _device_error(torch, device)
    if problem is not None:
        _error(problem)
        return EXIT_USAGE
    try:
        loaded = [(pair, load_fixture(pair.before), load_fixture(pair.after)) for pair in pairs]
    except FixtureError as exc:
        _error(str(exc))
        return EXIT_USAGE
    if not torch.cuda.is_available():
        click.echo(NO_CUDA_MESSAGE, err=True)
        return EXIT_NO_CUDA
    index = torch.device(device).index or 0
    if index >= torch.cuda.device_count():
        count = torch.cuda.device_count()
        click.echo(f"{PREFIX}: no CUDA device {device} ({count} available)", err=True)
        return EXIT_NO_CUDA
    _progress(f"calibrating the sleep kernel on {device}")
    harness = Harness(device).start()
    outcomes = [_measure(harness, *entry, repeats) for entry in loaded]
    click.echo(render(outcomes, harness.environment(), output_format), nl=False)
    return EXIT_PASS if all(o.verdict.passed for o in outcomes) else EXIT_FAIL

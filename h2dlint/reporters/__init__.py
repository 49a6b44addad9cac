"""Reporters: turn a run's findings into text for people, JSON for tools, GitHub workflow
commands for pull-request annotations, or SARIF for code scanning."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from h2dlint.diagnostics import Finding

# "full" (the default) and "text" are the same: a block per finding with the source line.
FORMATS = ("full", "concise", "text", "json", "github", "sarif")


@dataclass
class RunSummary:
    """What the run did besides finding things."""

    files_checked: int = 0
    # Fixes written (or, with --diff, that would be written), by rule code.
    fixed_by_code: dict[str, int] = field(default_factory=dict)
    # Findings whose fix needs --unsafe-fixes, which was not given.
    hidden_unsafe_fixes: int = 0
    # Findings not shown because they are less sure than --min-confidence.
    hidden_by_confidence: int = 0

    @property
    def fixed(self) -> int:
        return sum(self.fixed_by_code.values())


@dataclass(frozen=True)
class ReportOptions:
    color: bool = False
    # Paths in text and github output are shown relative to this directory when below it.
    cwd: Path = field(default_factory=Path.cwd)
    statistics: bool = False
    unsafe_fixes: bool = False
    # Text output: the findings only, no summary.
    quiet: bool = False
    # The directory SARIF paths are made relative to (the repository root).
    root: Path | None = None
    # Text output: one line per finding, no source snippet (--output-format concise).
    concise: bool = False
    # The files (as findings name them) whose settings enable unsafe fixes when
    # ``unsafe_fixes`` (for every file) is off: `unsafe-fixes = true` in their configuration.
    unsafe_fix_paths: frozenset[str] = frozenset()


def render(
    fmt: str, findings: Sequence[Finding], summary: RunSummary, options: ReportOptions
) -> str:
    """Render ``findings`` (already sorted) in format ``fmt``; the result ends with a newline
    unless it is empty. With ``options.statistics``: counts per rule, as JSON in the json format
    and as a table in any other (as Ruff does)."""
    if options.statistics and fmt == "json":
        from h2dlint.reporters.statistics import render_statistics_json

        return render_statistics_json(findings, options)
    if fmt in ("text", "full", "concise") or options.statistics:
        from h2dlint.reporters.text import render_text

        return render_text(findings, summary, replace(options, concise=fmt == "concise"))
    if fmt == "json":
        from h2dlint.reporters.json_format import render_json

        return render_json(findings, summary, options)
    if fmt == "github":
        from h2dlint.reporters.github import render_github

        return render_github(findings, summary, options)
    if fmt == "sarif":
        from h2dlint.reporters.sarif import render_sarif

        return render_sarif(findings, summary, options)
    raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")

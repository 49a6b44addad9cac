"""Reporters: turn a run's findings into text for people, JSON for tools, GitHub workflow
commands for pull-request annotations, or SARIF for code scanning."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from h2dlint.diagnostics import Finding
from h2dlint.reporters.options import FORMATS as FORMATS
from h2dlint.reporters.options import ReportOptions as ReportOptions
from h2dlint.reporters.options import RunSummary as RunSummary


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

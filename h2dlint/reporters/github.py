"""GitHub Actions workflow commands: one ``::warning``/``::error`` line per finding, which the
runner turns into annotations on the pull request."""

from __future__ import annotations

from collections.abc import Sequence

from h2dlint.diagnostics import Confidence, Finding
from h2dlint.reporters.options import ReportOptions, RunSummary
from h2dlint.reporters.text import display_path


def escape_data(text: str) -> str:
    """Escape a command's message as the Actions toolkit does (``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property's value as the Actions toolkit does (``escapeProperty``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: Sequence[Finding], summary: RunSummary, options: ReportOptions) -> str:
    return "".join(_command(finding, options) + "\n" for finding in findings)


def _command(finding: Finding, options: ReportOptions) -> str:
    level = finding.level
    title = finding.code
    if finding.confidence is not Confidence.HIGH:
        title += f", {finding.confidence.value} confidence"
    if finding.trace is not None:
        title += f", {finding.trace.label()}"
    properties = {
        "title": f"h2dlint ({title})",
        "file": display_path(finding.path, options.cwd),
        "line": str(finding.start.row),
        "col": str(finding.start.column),
        "endLine": str(finding.end.row),
        "endColumn": str(finding.end.column),
    }
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{level} {joined}::{escape_data(finding.message)}"

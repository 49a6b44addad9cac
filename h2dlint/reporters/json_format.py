"""Ruff-compatible JSON: an array of objects, one per finding, for tools and editors."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from h2dlint.diagnostics import Finding, FixInfo, Location
from h2dlint.reporters.options import ReportOptions, RunSummary

# Names that stand for standard input rather than a file; reporters keep them as given.
STDIN_NAMES = frozenset({"-", "<stdin>"})


def is_pseudo_path(path: str) -> bool:
    return path in STDIN_NAMES


def absolute_path(path: str, cwd: Path) -> str:
    """``path`` made absolute against ``cwd`` (symbolic links kept: a finding names the file
    the user named); absolute paths and standard-input names stay as given."""
    if is_pseudo_path(path) or os.path.isabs(path):
        return path
    return os.path.normpath(cwd / path)


def render_json(findings: Sequence[Finding], summary: RunSummary, options: ReportOptions) -> str:
    records = [_record(finding, options) for finding in findings]
    return json.dumps(records, indent=2, sort_keys=True) + "\n"


def _record(finding: Finding, options: ReportOptions) -> dict[str, Any]:
    record = _ruff_record(finding, options)
    if finding.trace is not None:
        # Not in Ruff's output, and only with `check --trace`: what the traced run says.
        record["trace"] = finding.trace.to_dict()
    return record


def _ruff_record(finding: Finding, options: ReportOptions) -> dict[str, Any]:
    return {
        "cell": None,
        "code": finding.code,
        # Not in Ruff's output: "high" (every fact proven) or "medium" (one fact inferred).
        "confidence": finding.confidence.value,
        "end_location": _location(finding.end),
        "filename": absolute_path(finding.path, options.cwd),
        "fix": _fix(finding.fix),
        "location": _location(finding.start),
        "message": finding.message,
        "noqa_row": finding.noqa_row,
        # Not in Ruff's output: "error" (wrong results: a race; a file that cannot be checked)
        # or "warning" (speed).
        "severity": finding.level,
        "url": finding.url,
    }


def _location(location: Location) -> dict[str, int]:
    return {"column": location.column, "row": location.row}


def _fix(fix: FixInfo | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {
        "applicability": fix.safety.value,
        "message": fix.message,
        "edits": [
            {
                "content": edit.content,
                "location": _location(edit.start),
                "end_location": _location(edit.end),
            }
            for edit in fix.edits
        ],
    }

"""``--statistics --output-format json``: findings per rule as Ruff prints them, a JSON array of
``{"code", "name", "count", "fixable"}`` objects, the most frequent rule first."""

from __future__ import annotations

import json
from collections.abc import Sequence

from h2dlint.diagnostics import Finding
from h2dlint.reporters.options import ReportOptions
from h2dlint.reporters.text import statistics


def render_statistics_json(findings: Sequence[Finding], options: ReportOptions) -> str:
    rows = [
        {"code": row.code, "name": row.name, "count": row.count, "fixable": row.fixable}
        for row in statistics(findings, options)
    ]
    return json.dumps(rows, indent=2) + "\n"

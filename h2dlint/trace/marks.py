"""``h2dlint check --trace TRACE.json``: mark each finding with what the traced run says about it
(confirmed, contradicted, not reached, not measurable), and keep only the confirmed ones with
``--only-confirmed``. Pure Python: the lint path reads the trace file without torch."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from h2dlint.diagnostics import FILE_DIAGNOSTIC_CODES, Finding, TraceMark
from h2dlint.trace.events import TraceData
from h2dlint.trace.join import (
    CONFIRMED,
    CONTRADICTED,
    NOT_MEASURABLE,
    NOT_REACHED,
    analysed_by,
    join,
)


def mark_findings(
    findings: Sequence[Finding], trace: TraceData, cwd: Path, analysed: Iterable[str]
) -> tuple[list[Finding], str]:
    """``findings`` with their trace marks, and a one-line summary of the join (``analysed``:
    the absolute files checked, for the count of costly sites no finding covers)."""
    rule_findings = [f for f in findings if f.code not in FILE_DIAGNOSTIC_CODES]
    checked = analysed_by(analysed, str(cwd), trace.root)
    result = join(trace, rule_findings, checked, str(cwd))
    marks = {
        id(match.finding): TraceMark(match.status, match.detail, match.count, match.host_ms)
        for match in result.matches
    }
    marked = [replace(f, trace=marks[id(f)]) if id(f) in marks else f for f in findings]
    counts = result.summary()
    summary = (
        f"trace: {counts[CONFIRMED]} confirmed, {counts[CONTRADICTED]} contradicted, "
        f"{counts[NOT_REACHED]} not reached"
        + (f", {counts[NOT_MEASURABLE]} not measurable" if counts[NOT_MEASURABLE] else "")
        + f"; {counts['missed']} costly call site(s) in these files that no finding covers "
        "(`h2dlint trace` lists them)"
    )
    return marked, summary


def only_confirmed(findings: Sequence[Finding]) -> list[Finding]:
    """The confirmed findings, and the file diagnostics (errors are never hidden)."""
    return [
        f
        for f in findings
        if f.code in FILE_DIAGNOSTIC_CODES or (f.trace is not None and f.trace.status == CONFIRMED)
    ]

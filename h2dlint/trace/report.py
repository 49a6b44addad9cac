"""The trace report: a text table sorted by host time lost, JSON (the trace file), or SARIF (each
call site's events as a result, the measured numbers in its properties)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h2dlint
from h2dlint.trace.events import H2D, SYNC, EventGroup, Frame, TraceData, document
from h2dlint.trace.join import (
    CONFIRMED,
    CONTRADICTED,
    NOT_MEASURABLE,
    NOT_REACHED,
    Join,
    Match,
    Site,
    join_json,
)

TOP = 25
"""Rows per table in the text report."""


@dataclass
class Row:
    """The groups of one site, kind and operation, merged (their callers may differ)."""

    site: Frame
    kind: str
    what: str
    reason: str
    memory: str
    non_blocking: bool
    groups: list[EventGroup] = field(default_factory=list)

    def _sum(self, name: str) -> Any:
        return sum(getattr(g, name) for g in self.groups)

    @property
    def count(self) -> int:
        return int(self._sum("count"))

    @property
    def host_ms(self) -> float:
        return float(self._sum("host_ms"))

    @property
    def nbytes(self) -> int:
        return int(self._sum("nbytes"))

    def detail(self) -> str:
        if self.kind == SYNC:
            return self.reason
        blocking = "non_blocking" if self.non_blocking else "blocking"
        ran = f"async {self._sum('ran_async')}/waited {self._sum('waited')}"
        unknown = self._sum("unknown")
        ran += f"/? {unknown}" if unknown else ""
        return f"{self.memory}, {blocking}, {size(self.nbytes)}, {ran}"


def rows(groups: Sequence[EventGroup]) -> list[Row]:
    merged: dict[tuple[Any, ...], Row] = {}
    for g in groups:
        memory = g.memory if g.kind == H2D else ""
        key = (g.site, g.kind, g.what, g.reason, memory, g.non_blocking)
        row = merged.setdefault(key, Row(g.site, g.kind, g.what, g.reason, memory, g.non_blocking))
        row.groups.append(g)
    return sorted(merged.values(), key=lambda r: (-r.host_ms, r.site, r.kind, r.what))


def size(nbytes: int) -> str:
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{nbytes} B"  # pragma: no cover


def where(frame: Frame, root: str) -> str:
    file = frame.file
    if root and os.path.isabs(file):
        relative = os.path.relpath(file, root)
        if not relative.startswith(".."):
            file = relative
    return f"{file}:{frame.line} {frame.function}"


# -- text ----------------------------------------------------------------------------------------
def render_text(trace: TraceData, result: Join | None) -> str:
    root = trace.root
    lines = [_headline(trace), ""]
    table = rows(trace.groups)
    lines.append(f"Host time lost, by call site ({len(table)}; most first):")
    if table:
        lines.append(f"  {'ms':>10} {'calls':>7}  {'kind':<4}  {'what':<22} {'where':<44} detail")
        for row in table[:TOP]:
            lines.append(
                f"  {row.host_ms:>10.3f} {row.count:>7}  {row.kind:<4}  {row.what:<22} "
                f"{where(row.site, root):<44} {row.detail()}"
            )
        lines += _more(len(table))
    else:
        lines.append("  (no host-to-device copy and no host sync was seen)")
    if trace.bursts:
        lines += ["", f"Per-item copy bursts (>= {trace.burst_min} copies in a row, one site):"]
        for burst in trace.bursts[:TOP]:
            lines.append(
                f"  {burst.copies:>7} copies in {burst.bursts} burst(s), largest "
                f"{burst.largest}, {size(burst.nbytes)}, {burst.host_ms:.3f} ms  "
                f"{where(burst.site, root)}"
            )
    if trace.profiler is not None:
        kinds = ", ".join(f"{name}: {count}" for name, count in trace.profiler.items())
        lines += ["", f"Profiler memcpy kinds (whole run): {kinds or 'none'}"]
    if result is not None:
        lines += ["", *_join_text(result, root)]
    return "\n".join(lines) + "\n"


def _headline(trace: TraceData) -> str:
    command = " ".join(trace.command) or "(in-process)"
    env = trace.environment
    device = env.get("device_name") or "no CUDA device"
    parts = [
        f"exit {trace.exit_code}" if trace.exit_code is not None else "",
        f"{trace.wall_s:.2f} s",
    ]
    parts.append(f"torch {env.get('torch', '?')} on {device}")
    text = f"h2dlint trace: {command} ({', '.join(p for p in parts if p)})"
    if trace.error:
        text += f"\n  the program raised: {trace.error}"
    return text


def _more(total: int) -> list[str]:
    return [f"  ... {total - TOP} more (in the JSON report)"] if total > TOP else []


def _site_line(site: Site, root: str) -> str:
    burst = f", {site.burst} in bursts" if site.burst else ""
    burst += ", ran once" if site.once else ""
    events = "; ".join(
        f"{row.count} x {row.what} ({row.detail()})" for row in rows(site.groups)[:3]
    )
    return (
        f"  {site.host_ms:>10.3f} ms {site.count:>6} calls{burst}  {where(site.site, root)}: "
        f"{events}"
    )


def _match_line(match: Match) -> str:
    finding = match.finding
    cost = f"{match.count} events, {match.host_ms:.3f} ms: " if match.groups else ""
    place = f"{finding.path}:{finding.start.row}:{finding.start.column}"
    return f"  {place} {finding.code} {cost}{match.detail}"


def _join_text(result: Join, root: str) -> list[str]:
    summary = result.summary()
    lines = [
        "Findings vs events: "
        f"{summary[CONFIRMED]} confirmed, {summary[CONTRADICTED]} contradicted, "
        f"{summary[NOT_REACHED]} not reached, {summary['missed']} missed"
        + (f", {summary[NOT_MEASURABLE]} not measurable" if summary[NOT_MEASURABLE] else "")
        + ("" if result.has_lines else " (no line coverage: Python < 3.12)")
    ]
    sections: list[tuple[str, list[str]]] = [
        (
            "missed (costly events at lines no finding covers: recall gaps, repeated ones first, "
            "most costly first)",
            [_site_line(site, root) for site in result.missed],
        ),
        (
            "confirmed (the finding's line produced what its rule says)",
            [_match_line(m) for m in _by_cost(result.with_status(CONFIRMED))],
        ),
        (
            "contradicted (the line ran and did not cost what the rule says: precision gaps)",
            [_match_line(m) for m in _by_cost(result.with_status(CONTRADICTED))],
        ),
        (
            "not reached (the run did not execute the line: not a false positive, not exercised)",
            [_match_line(m) for m in result.with_status(NOT_REACHED)],
        ),
        (
            "explicit syncs no finding covers (torch.cuda.synchronize() and the like: mostly "
            "deliberate; HTD202 reports a wait right after non_blocking copies)",
            [_site_line(site, root) for site in result.explicit],
        ),
        (
            "outside the analysed files (installed packages, files outside the root)",
            [_site_line(site, root) for site in result.outside],
        ),
    ]
    for title, body in sections:
        if body:
            lines += ["", f"{title}:", *body[:TOP], *_more(len(body))]
    return lines


def _by_cost(matches: list[Match]) -> list[Match]:
    return sorted(matches, key=lambda m: (-m.host_ms, m.finding.path, m.finding.start.row))


# -- json ----------------------------------------------------------------------------------------
def render_json(trace: TraceData, result: Join | None) -> str:
    data = document(trace, join_json(result) if result is not None else None)
    return json.dumps(data, indent=2) + "\n"


# -- sarif ---------------------------------------------------------------------------------------
SARIF_RULES = {
    H2D: ("trace/h2d-copy", "Host-to-device copy, measured"),
    SYNC: ("trace/host-sync", "Host sync, measured"),
}


def render_sarif(trace: TraceData, result: Join | None) -> str:
    from h2dlint.reporters import ReportOptions
    from h2dlint.reporters.sarif import (
        SARIF_VERSION,
        SCHEMA_URI,
        SRCROOT,
        artifact_location,
        directory_uri,
        sarif_root,
    )

    root = sarif_root(ReportOptions(cwd=Path(trace.root or ".")))
    status = _site_status(result)
    rule_ids = [rule_id for rule_id, _ in SARIF_RULES.values()]
    results = []
    for row in rows(trace.groups):
        artifact = artifact_location(row.site.file, root, Path(trace.root or "."))
        join_status = status.get((row.site, row.kind), "")
        properties: dict[str, Any] = {
            "count": row.count,
            "host_ms": round(row.host_ms, 4),
            "max_ms": round(max(g.max_ms for g in row.groups), 4),
            "operation": row.what,
            "reason": row.reason,
            "function": row.site.function,
            "join": join_status,
        }
        if row.kind == H2D:
            properties.update(
                nbytes=row.nbytes,
                memory=row.memory,
                non_blocking=row.non_blocking,
                ran_async=sum(g.ran_async for g in row.groups),
                waited=sum(g.waited for g in row.groups),
                unknown=sum(g.unknown for g in row.groups),
            )
        rule_id = SARIF_RULES[row.kind][0]
        results.append(
            {
                "ruleId": rule_id,
                "ruleIndex": rule_ids.index(rule_id),
                "level": "warning" if join_status == "missed" else "note",
                "message": {
                    "text": f"{row.count} x {row.what}: {row.detail()}; "
                    f"{row.host_ms:.3f} ms of host time"
                },
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": artifact,
                            "region": {"startLine": max(row.site.line, 1)},
                        }
                    }
                ],
                "properties": properties,
            }
        )
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "h2dlint trace",
                "version": h2dlint.__version__,
                "rules": [
                    {"id": rule_id, "shortDescription": {"text": text}}
                    for rule_id, text in SARIF_RULES.values()
                ],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": directory_uri(root)}},
        "results": results,
        "properties": {
            "command": trace.command,
            "exit_code": trace.exit_code,
            "environment": trace.environment,
            "join": result.summary() if result is not None else None,
        },
    }
    log = {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(log, indent=2) + "\n"


def _site_status(result: Join | None) -> dict[tuple[Frame, str], str]:
    """(site, kind) -> "missed", "explicit" or "outside"; sites a finding covers are absent."""
    if result is None:
        return {}
    status: dict[tuple[Frame, str], str] = {}
    for name, sites in (
        ("missed", result.missed),
        ("explicit", result.explicit),
        ("outside", result.outside),
    ):
        for site in sites:
            for group in site.groups:
                status[(site.site, group.kind)] = name
    covered = {
        (group.site, group.kind)
        for match in result.matches
        if match.status == CONFIRMED
        for group in match.groups
    }
    for key in covered:
        status.setdefault(key, "confirmed")
    return status


RENDERERS = {"text": render_text, "json": render_json, "sarif": render_sarif}


def format_for(path: Path) -> str:
    """The report format a file name asks for: .sarif -> sarif, .txt/.text -> text, else json."""
    name = path.name.lower()
    if name.endswith((".sarif", ".sarif.json")):
        return "sarif"
    if name.endswith((".txt", ".text")):
        return "text"
    return "json"

"""The report of ``h2dlint verify``: a text table, or JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from h2dlint.verify.fixtures import FixturePair, PairOptions
from h2dlint.verify.records import PairMeasurement, SideMeasurement
from h2dlint.verify.verdict import Verdict, blocks, race_shown

JSON_VERSION = 1
COLUMNS = (
    "fixture",
    "side",
    "H2D pageable",
    "H2D pinned",
    "syncs",
    "host ms under sleep",
    "host ms",
    "GPU ms",
    "equal",
    "verdict",
)
# For a race pair the "equal" column says whether each side gave the expected outputs.
UNAVAILABLE_MARK = "*"


@dataclass
class PairOutcome:
    """One pair, its measurement and its verdict."""

    pair: FixturePair
    options: PairOptions
    measurement: PairMeasurement
    verdict: Verdict


def _count(measured: int | None, traced: int | None) -> str:
    if measured is not None:
        return str(measured)
    return "?" if traced is None else f"{traced}{UNAVAILABLE_MARK}"


def _timing(median: float, spread: float) -> str:
    return f"{median:.3f} ±{spread:.3f}"


def _side_cells(side: SideMeasurement) -> list[str]:
    traced_pinned = sum(1 for c in side.copies if c.direction == "HTD" and not c.staged)
    under = f"{side.host_ms_under_sleep:.2f}" + (" blocks" if blocks(side) else "")
    return [
        _count(side.h2d_pageable, side.traced_h2d_staged),
        _count(side.h2d_pinned, traced_pinned),
        str(side.sync_count),
        under,
        _timing(side.host_ms, side.host_spread_ms),
        _timing(side.gpu_ms, side.gpu_spread_ms),
    ]


def _rows(outcome: PairOutcome) -> list[list[str]]:
    name, m = outcome.pair.name, outcome.measurement
    verdict = "PASS" if outcome.verdict.passed else "FAIL"
    if m.before is None or m.after is None:
        return [[name, "-", *["-"] * 6, "-", verdict]]
    if m.race:
        # A race pair: each side against the expected outputs.
        return [
            [name, "before", *_side_cells(m.before), _right(m.before_wrong), ""],
            [name, "after", *_side_cells(m.after), _right(m.after_wrong), verdict],
        ]
    equal = "yes" if m.equal_reason is None else "no"
    return [
        [name, "before", *_side_cells(m.before), "", ""],
        [name, "after", *_side_cells(m.after), equal, verdict],
    ]


def _right(wrong: str | None) -> str:
    return "expected" if wrong is None else "WRONG"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _summary(outcomes: list[PairOutcome]) -> dict[str, int]:
    passed = sum(1 for o in outcomes if o.verdict.passed)
    return {"pairs": len(outcomes), "passed": passed, "failed": len(outcomes) - passed}


def render_text(outcomes: list[PairOutcome], environment: dict[str, Any]) -> str:
    rows = [list(COLUMNS)] + [row for outcome in outcomes for row in _rows(outcome)]
    lines = _table(rows)
    failures = [o for o in outcomes if not o.verdict.passed]
    races = [(o, race_shown(o.measurement)) for o in outcomes]
    races = [(o, shown) for o, shown in races if shown is not None]
    if failures or races:
        lines.append("")
    for outcome, shown in races:
        lines.append(f"RACE {outcome.pair.name}: {shown}")
    for outcome in failures:
        for reason in outcome.verdict.reasons:
            lines.append(f"FAIL {outcome.pair.name}: {reason}")
    if any(
        side is not None and side.memcpy is None
        for o in outcomes
        for side in (o.measurement.before, o.measurement.after)
    ):
        lines.append(
            f"{UNAVAILABLE_MARK} the profiler recorded no memcpy here: "
            "counted from the traced copy ops instead"
        )
    summary = _summary(outcomes)
    pairs = "pair" if summary["pairs"] == 1 else "pairs"
    lines.append("")
    lines.append(
        f"{summary['pairs']} {pairs}: {summary['passed']} passed, {summary['failed']} failed "
        f"({_environment_line(environment)})"
    )
    return "\n".join(lines) + "\n"


def _environment_line(environment: dict[str, Any]) -> str:
    parts = []
    if environment.get("device_name"):
        parts.append(str(environment["device_name"]))
    if environment.get("torch"):
        parts.append(f"torch {environment['torch']}")
    if environment.get("min_sleep_ms"):
        parts.append(f"sleep kernel >= {environment['min_sleep_ms']:.0f} ms")
    return ", ".join(parts) or "no environment"


def side_dict(side: SideMeasurement | None) -> dict[str, Any] | None:
    if side is None:
        return None
    data = asdict(side)
    data["sync_events"] = data.pop("syncs")
    data.update(
        h2d_pageable=side.h2d_pageable,
        h2d_pinned=side.h2d_pinned,
        d2h=side.d2h,
        traced_h2d_staged=side.traced_h2d_staged,
        syncs=side.sync_count,
        blocks=blocks(side),
    )
    return data


def outcome_dict(outcome: PairOutcome) -> dict[str, Any]:
    m = outcome.measurement
    return {
        "fixture": outcome.pair.name,
        "before_path": str(outcome.pair.before),
        "after_path": str(outcome.pair.after),
        "options": asdict(outcome.options),
        "error": m.error,
        "equal": None if m.error is not None else m.equal_reason is None,
        "equal_reason": m.equal_reason,
        "kind": "race" if m.race else "speed",
        "before_wrong": m.before_wrong,
        "after_wrong": m.after_wrong,
        "race_detected": race_shown(m),
        "before": side_dict(m.before),
        "after": side_dict(m.after),
        "verdict": {"passed": outcome.verdict.passed, "reasons": list(outcome.verdict.reasons)},
    }


def render_json(outcomes: list[PairOutcome], environment: dict[str, Any]) -> str:
    document = {
        "version": JSON_VERSION,
        "environment": environment,
        "pairs": [outcome_dict(outcome) for outcome in outcomes],
        "summary": _summary(outcomes),
    }
    return json.dumps(document, indent=2) + "\n"


def render(outcomes: list[PairOutcome], environment: dict[str, Any], output_format: str) -> str:
    if output_format == "json":
        return render_json(outcomes, environment)
    return render_text(outcomes, environment)

"""Joins a trace's events with h2dlint's findings for the same files.

- **confirmed**: a finding whose line produced the events its rule speaks of (with their cost);
- **contradicted**: a finding whose line ran (it produced other events, or line coverage saw it)
  and did not cost what the rule says (the source was pinned after all, no sync happened);
- **not reached**: a finding whose line the run did not execute, as far as the trace can tell:
  not a false positive, only not exercised;
- **missed**: costly events (syncs, copies that held the host or went through pageable memory,
  per-item bursts) at lines no finding covers: the linter's recall gaps, the most costly first.

Explicit syncs (``torch.cuda.synchronize()``) that no finding covers are listed apart: HTD202
reports only one shape of them (a wait right after ``non_blocking`` copies to the device, on a
hot path); most are deliberate (timing, warm-up, handing buffers over) or run once.
Events in files that were not analysed are listed as *outside*. Pure Python, no torch.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from h2dlint.diagnostics import Finding
from h2dlint.trace.events import H2D, SYNC, EventGroup, Frame, TraceData

CONFIRMED = "confirmed"
CONTRADICTED = "contradicted"
NOT_REACHED = "not-reached"
NOT_MEASURABLE = "not-measurable"
ANY = "any"

Test = Callable[[Sequence[EventGroup]], bool]


@dataclass(frozen=True)
class Expectation:
    """What a rule's finding predicts at its line: events of ``family`` that pass ``test``."""

    family: str  # H2D, SYNC or ANY
    test: Test
    predicts: str  # what the rule says happens, for the contradiction message


def _any(groups: Sequence[EventGroup]) -> bool:
    return bool(groups)


EXPECTATIONS: dict[str, Expectation] = {
    "HTD101": Expectation(H2D, _any, "host-to-device copies"),
    "HTD102": Expectation(
        H2D,
        lambda gs: any(g.non_blocking and g.staged for g in gs),
        "non_blocking copies from pageable memory",
    ),
    "HTD103": Expectation(H2D, lambda gs: any(not g.dense for g in gs), "copies of strided views"),
    "HTD104": Expectation(H2D, lambda gs: any(g.staged for g in gs), "copies from pageable memory"),
    "HTD105": Expectation(
        H2D,
        lambda gs: any(g.pinned and not g.non_blocking for g in gs),
        "blocking copies from pinned memory",
    ),
    "HTD106": Expectation(H2D, _any, "host-to-device copies"),
    "HTD107": Expectation(H2D, _any, "host-to-device copies"),
    "HTD201": Expectation(SYNC, _any, "host syncs"),
    "HTD202": Expectation(SYNC, _any, "host syncs"),
    "HTD301": Expectation(H2D, _any, "host-to-device copies"),
    "HTD302": Expectation(H2D, _any, "host-to-device copies"),
    "HTD303": Expectation(ANY, _any, "copies to the device and back"),
}
PREFIX_EXPECTATIONS = {
    "HTD1": Expectation(H2D, _any, "host-to-device copies"),
    "HTD2": Expectation(SYNC, _any, "host syncs"),
    "HTD3": Expectation(ANY, _any, "copies"),
}


def expectation(code: str) -> Expectation | None:
    """What a finding of ``code`` predicts; None for rules with no runtime cost to measure
    (races, h2dlint's own diagnostics)."""
    return EXPECTATIONS.get(code) or PREFIX_EXPECTATIONS.get(code[:4])


def in_family(group: EventGroup, family: str) -> bool:
    """Whether ``group`` is an event of ``family``: a blocking or stalled H2D copy is a sync too."""
    if family == ANY:
        return True
    if family == SYNC:
        return group.kind == SYNC or group.waited > 0
    return group.kind == family


def describe(groups: Iterable[EventGroup]) -> str:
    """What ran: ``3 x .item() (scalar read); 2 x .to() from pinned memory, non_blocking``."""
    parts = []
    for g in groups:
        if g.kind == H2D:
            blocking = "non_blocking" if g.non_blocking else "blocking"
            parts.append(f"{g.count} x {g.what} from {g.memory} memory, {blocking}")
        else:
            parts.append(f"{g.count} x {g.what} ({g.reason})")
    return "; ".join(parts)


# -- matching files ------------------------------------------------------------------------------
def _keys(file: str, base: str) -> tuple[str, ...]:
    """Keys a file matches by: its absolute path, and its path relative to ``base`` when it lies
    below (a trace made in another checkout of the same project still matches)."""
    absolute = os.path.normpath(file if os.path.isabs(file) else os.path.join(base, file))
    keys = [f"abs:{absolute}"]
    if base:
        relative = os.path.relpath(absolute, base)
        if not relative.startswith(".."):
            keys.append(f"rel:{relative.replace(os.sep, '/')}")
    return tuple(keys)


def analysed_by(files: Iterable[str], cwd: str, root: str) -> Callable[[str], bool]:
    """Whether a file a trace made in ``root`` names is one of ``files`` (checked from ``cwd``)."""
    keys = {key for file in files for key in _keys(file, cwd)}

    def analysed(file: str) -> bool:
        return not keys.isdisjoint(_keys(file, root))

    return analysed


class FileIndex:
    """Event groups and lines that ran, by file key."""

    def __init__(self, trace: TraceData) -> None:
        self.groups: dict[str, list[tuple[int, EventGroup]]] = {}
        self.lines: dict[str, set[int]] = {}
        self.has_lines = trace.lines_run is not None
        root = trace.root
        for group in trace.groups:
            seen: set[tuple[str, int]] = set()
            for depth, frame in enumerate(group.stack):
                for key in _keys(frame.file, root):
                    if (key, frame.line) not in seen:
                        seen.add((key, frame.line))
                        self.groups.setdefault(key, []).append((depth, group))
        for file, rows in (trace.lines_run or {}).items():
            for key in _keys(file, root):
                self.lines.setdefault(key, set()).update(rows)

    def at(self, keys: Iterable[str], first: int, last: int) -> list[tuple[int, EventGroup]]:
        """(depth, group) of the groups with a frame in the file on a line in [first, last]; a
        group once, at its innermost such frame."""
        found: dict[int, tuple[int, EventGroup]] = {}
        for key in keys:
            for depth, group in self.groups.get(key, ()):
                if first <= group.stack[depth].line <= last:
                    best = found.get(id(group))
                    if best is None or depth < best[0]:
                        found[id(group)] = (depth, group)
        return list(found.values())

    def ran(self, keys: Iterable[str], first: int, last: int) -> bool:
        return any(first <= row <= last for key in keys for row in self.lines.get(key, ()))


# -- the join ------------------------------------------------------------------------------------
class _Events:
    """The count and host time of a result's event groups."""

    groups: list[EventGroup]

    @property
    def count(self) -> int:
        return sum(g.count for g in self.groups)

    @property
    def host_ms(self) -> float:
        return sum(g.host_ms for g in self.groups)


@dataclass
class Match(_Events):
    """A finding and what the run says about it."""

    finding: Finding
    status: str
    groups: list[EventGroup] = field(default_factory=list)
    detail: str = ""


@dataclass
class Site(_Events):
    """Costly events at one call site (innermost user frame) that no finding covers."""

    site: Frame
    groups: list[EventGroup]
    burst: int = 0  # copies in per-item bursts at this site

    @property
    def once(self) -> bool:
        """Whether the site ran a single event (set-up or a last read, not a step's)."""
        return self.count <= 1


@dataclass
class Join:
    matches: list[Match] = field(default_factory=list)
    missed: list[Site] = field(default_factory=list)
    outside: list[Site] = field(default_factory=list)
    explicit: list[Site] = field(default_factory=list)
    has_lines: bool = False

    def with_status(self, status: str) -> list[Match]:
        return [m for m in self.matches if m.status == status]

    def summary(self) -> dict[str, int]:
        counts = {
            status: len(self.with_status(status))
            for status in (CONFIRMED, NOT_REACHED, CONTRADICTED, NOT_MEASURABLE)
        }
        counts["missed"] = len(self.missed)
        counts["outside"] = len(self.outside)
        counts["explicit"] = len(self.explicit)
        return counts


def _span(finding: Finding) -> tuple[int, int]:
    return finding.start.row, max(finding.start.row, finding.end.row)


def judge(finding: Finding, index: FileIndex, cwd: str) -> Match:
    """What the run says about one finding."""
    expected = expectation(finding.code)
    if expected is None:
        return Match(finding, NOT_MEASURABLE, detail="no runtime cost to measure for this rule")
    keys = _keys(finding.path, cwd)
    first, last = _span(finding)
    here = index.at(keys, first, last)
    relevant = [g for _, g in here if in_family(g, expected.family)]
    innermost = [g for depth, g in here if depth == 0 and in_family(g, expected.family)]
    groups = innermost or relevant
    if groups and expected.test(groups):
        return Match(finding, CONFIRMED, groups, describe(groups))
    if here:
        seen = describe(g for _, g in here)
        return Match(
            finding,
            CONTRADICTED,
            [g for _, g in here],
            f"the line ran, but not with {expected.predicts}: {seen}",
        )
    if index.ran(keys, first, last):
        return Match(
            finding,
            CONTRADICTED,
            detail=f"the line ran (line coverage) without {expected.predicts}",
        )
    if index.has_lines:
        return Match(finding, NOT_REACHED, detail="the line did not run")
    return Match(
        finding,
        NOT_REACHED,
        detail="no event at the line (without line coverage, Python < 3.12, it may have run "
        "at no cost)",
    )


def _covered(group: EventGroup, findings: Sequence[Finding], cwd: str, root: str) -> bool:
    """Whether a finding of the group's family covers a line of the group's stack."""
    for finding in findings:
        expected = expectation(finding.code)
        if expected is None or not in_family(group, expected.family):
            continue
        keys = set(_keys(finding.path, cwd))
        first, last = _span(finding)
        for frame in group.stack:
            if first <= frame.line <= last and keys.intersection(_keys(frame.file, root)):
                return True
    return False


def _sites(groups: Iterable[EventGroup], bursts: dict[Frame, int]) -> list[Site]:
    by_site: dict[Frame, list[EventGroup]] = {}
    for group in groups:
        by_site.setdefault(group.site, []).append(group)
    sites = [Site(site, found, bursts.get(site, 0)) for site, found in by_site.items()]
    # Sites that ran more than once (per step, per item) first, then those that ran once (a
    # model's move at load, a final read): only the former can be a per-step cost.
    return sorted(sites, key=lambda s: (s.once, -s.host_ms, s.site))


def join(
    trace: TraceData,
    findings: Sequence[Finding],
    analysed: Callable[[str], bool],
    cwd: str,
) -> Join:
    """Join ``trace`` with ``findings`` (paths as ``check`` names them, relative to ``cwd``).
    ``analysed(file)`` tells whether a file the trace names (absolute) was analysed."""
    index = FileIndex(trace)
    result = Join(has_lines=index.has_lines)
    result.matches = [judge(finding, index, cwd) for finding in findings]
    bursts = {burst.site: burst.copies for burst in trace.bursts}
    missed, outside, explicit = [], [], []
    for group in trace.groups:
        if group.explicit:
            if not _covered(group, findings, cwd, trace.root):
                explicit.append(group)
        elif not (group.costly or group.site in bursts):
            continue
        elif not analysed(group.site.file):
            outside.append(group)
        elif not _covered(group, findings, cwd, trace.root):
            missed.append(group)
    result.missed = _sites(missed, bursts)
    result.outside = _sites(outside, bursts)
    result.explicit = _sites(explicit, {})
    return result


def match_json(match: Match) -> dict[str, Any]:
    finding = match.finding
    return {
        "status": match.status,
        "code": finding.code,
        "path": finding.path,
        "row": finding.start.row,
        "column": finding.start.column,
        "message": finding.message,
        "count": match.count,
        "host_ms": round(match.host_ms, 4),
        "detail": match.detail,
    }


def site_json(site: Site) -> dict[str, Any]:
    return {
        "site": site.site.to_json(),
        "count": site.count,
        "host_ms": round(site.host_ms, 4),
        "burst_copies": site.burst,
        "events": describe(site.groups),
        "kinds": sorted({g.kind for g in site.groups}),
    }


def join_json(result: Join) -> dict[str, Any]:
    """The join as the trace file and ``--output-format json`` hold it."""
    order = {CONFIRMED: 0, CONTRADICTED: 1, NOT_REACHED: 2, NOT_MEASURABLE: 3}
    matches = sorted(
        result.matches,
        key=lambda m: (order[m.status], -m.host_ms, m.finding.path, m.finding.start.row),
    )
    return {
        "summary": result.summary(),
        "line_coverage": result.has_lines,
        "missed": [site_json(site) for site in result.missed],
        "findings": [match_json(match) for match in matches],
        "explicit": [site_json(site) for site in result.explicit],
        "outside": [site_json(site) for site in result.outside],
    }

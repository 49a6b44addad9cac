"""A variant battery for the sync families (HTD201 per-row syncs, HTD202 single syncs on a hot
path): small multi-module programs in the shapes of serving engines and model code, written
for this battery, under tests/data/variants/syncs/<case>/.

Each case is a package of its own; expectations are comments on the reported line, as in
tests/test_seed_projects.py: ``# expect: HTD201`` (reported here with that code),
``# expect-not: HTD201, HTD202`` (a look-alike: not reported here), ``# allow: HTD202`` (either
way; the verdict hangs on facts the case does not show). Only the sync codes (HTD2xx) are
checked for findings on unmarked lines; other rules may report what they like.

The whole battery is checked in one run (one top-level package per case), so that facts of
one case's modules come from its own project index. ``KNOWN_MISSES`` and ``KNOWN_UNEXPECTED``
hold what fails today, as strict xfails, with the reason in a comment.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from test_seed_projects import battery_findings, parse_expectations

BATTERY = Path(__file__).resolve().parent / "data" / "variants" / "syncs"
CASES = tuple(sorted(p.name for p in BATTERY.iterdir() if (p / "__init__.py").is_file()))
SYNC_CODE = re.compile(r"^HTD2\d\d$")

# Expectations that fail today: "case/file.py:line:CODE" (a miss) or ":not-CODE" (a false alarm).
KNOWN_MISSES: frozenset[str] = frozenset(
    {
        # run-once code: a device-proven row loop in `__init__` whose read feeds a `raise`
        # (HTD201 reports proven per-row syncs wherever they run)
        "c03_init_once/rope.py:12:not-HTD201",
        # single-sync misses:
        # `(nxt == eos).any()` with `nxt = logits.argmax(-1)` (positional dim: numpy too) of
        # `self.model(...)` of unknown class
        "s23_eos_any/generate.py:14:HTD202",
    }
)

# HTD2xx findings on lines that expect none: "case/file.py:line:CODE".
KNOWN_UNEXPECTED: frozenset[str] = frozenset()


def _expectations() -> list[tuple[str, int, str, str]]:
    """(path, line, code, kind) of every clause in the battery (the seed projects' syntax)."""
    return [
        (e.path, e.line, e.code, e.kind)
        for case in CASES
        for file in sorted((BATTERY / case).rglob("*.py"))
        for e in parse_expectations(
            file.relative_to(BATTERY).as_posix(), file.read_text(encoding="utf-8")
        )
    ]


EXPECTATIONS = _expectations()


@functools.cache
def findings() -> frozenset[tuple[str, int, str]]:
    """(path, line, code) of every finding of one run over all the cases."""
    return battery_findings(BATTERY, CASES)


def _id(path: str, line: int, code: str, kind: str) -> str:
    return f"{path}:{line}:{'not-' if kind == 'expect-not' else ''}{code}"


def _params() -> list[object]:
    params = []
    for path, line, code, kind in EXPECTATIONS:
        if kind == "allow":
            continue
        ident = _id(path, line, code, kind)
        marks = [pytest.mark.xfail(strict=True, reason="known")] if ident in KNOWN_MISSES else []
        params.append(pytest.param(path, line, code, kind, marks=marks, id=ident))
    return params


@pytest.mark.parametrize(("path", "line", "code", "kind"), _params())
def test_expectation(path: str, line: int, code: str, kind: str) -> None:
    reported = (path, line, code) in findings()
    if kind == "expect":
        assert reported, f"{code} not reported on {path}:{line}"
    else:
        assert not reported, f"{code} reported on the look-alike {path}:{line}"


def unexpected() -> set[str]:
    marked = {(path, line, code) for path, line, code, _ in EXPECTATIONS}
    return {
        f"{path}:{line}:{code}"
        for path, line, code in findings()
        if SYNC_CODE.match(code) and (path, line, code) not in marked
    }


def test_no_unexpected_sync_findings() -> None:
    found = unexpected()
    assert found - KNOWN_UNEXPECTED == set(), "sync findings on lines that expect none"
    assert KNOWN_UNEXPECTED - found == set(), "gone: remove from KNOWN_UNEXPECTED"


def test_battery_shape() -> None:
    """Every case has a positive or a look-alike, and the known lists name real clauses."""
    assert len(CASES) >= 40
    for case in CASES:
        assert any(p.startswith(case + "/") and k != "allow" for p, _, _, k in EXPECTATIONS), case
    ids = {_id(p, line, c, k) for p, line, c, k in EXPECTATIONS}
    assert KNOWN_MISSES - ids == set()


def _report() -> None:
    """``python tests/test_variants_syncs.py``: what fails today, per family."""
    got = findings()
    for path, line, code, kind in EXPECTATIONS:
        if kind != "allow" and ((path, line, code) in got) != (kind == "expect"):
            print("miss " if kind == "expect" else "alarm", _id(path, line, code, kind))
    for entry in sorted(unexpected()):
        print("unexpected", entry)


if __name__ == "__main__":
    _report()

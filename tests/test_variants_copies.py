"""A variant battery for the host-to-device copy families (HTD101-HTD104, HTD106).

Each case under tests/data/variants/copies/ is a small package of its own, written from
scratch in the shapes serving engines, model runners, multimodal input processing, KV-cache
offload, LoRA adapters and speculative decoding take: the seed write-ups' bugs (shared/seeds)
varied the way different code bases write them, each beside look-alikes that must stay clean
(pinned sources, device sources, code that runs once, host destinations). The cases stand in
for code h2dlint has never seen: the blind evaluation scores real fixes in such packages.

Expectations are trailing comments, as in tests/projects (see test_seed_projects.py):
``# expect: HTD101``, ``# expect-not: HTD102``, ``# allow: HTD104``. The whole battery is
checked in one run (every case is a top-level package, so the project index resolves the
imports between a case's modules). A copy-family finding on a line that marks nothing for
its code fails the case; findings of the other families are not this battery's business.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from test_seed_projects import Expectation, battery_findings, parse_expectations

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "tests" / "data" / "variants" / "copies"
CASES = tuple(sorted(p.name for p in CASES_DIR.iterdir() if (p / "__init__.py").is_file()))
FAMILY = frozenset({"HTD101", "HTD102", "HTD103", "HTD104", "HTD106"})

# Expectations that fail today (ids as Expectation.id), each with the reason it is left.
KNOWN_MISSES: dict[str, str] = {}

# Copy-family findings on lines that mark nothing for their code ("path:line:code").
KNOWN_UNEXPECTED: dict[str, str] = {}


def _files(case: str) -> list[str]:
    return sorted(p.relative_to(CASES_DIR).as_posix() for p in (CASES_DIR / case).rglob("*.py"))


@functools.cache
def expectations() -> tuple[Expectation, ...]:
    return tuple(
        e
        for case in CASES
        for path in _files(case)
        for e in parse_expectations(path, (CASES_DIR / path).read_text(encoding="utf-8"))
    )


@functools.cache
def findings() -> frozenset[tuple[str, int, str]]:
    """(path, line, code) of every finding of one run over all the cases."""
    return battery_findings(CASES_DIR, CASES)


def _params() -> list[object]:
    params = []
    for e in expectations():
        if e.kind == "allow":
            continue
        marks = []
        if e.id in KNOWN_MISSES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[e.id]))
        params.append(pytest.param(e, marks=marks, id=e.id))
    return params


@pytest.mark.parametrize("expectation", _params())
def test_expectation(expectation: Expectation) -> None:
    reported = (expectation.path, expectation.line, expectation.code) in findings()
    if expectation.wants_finding:
        assert reported, f"{expectation.code} not reported on {expectation.path}:{expectation.line}"
    else:
        assert not reported, (
            f"{expectation.code} reported on the look-alike {expectation.path}:{expectation.line}"
        )


@pytest.mark.parametrize("case", CASES)
def test_no_unexpected_copy_findings(case: str) -> None:
    marked = {(e.path, e.line, e.code) for e in expectations()}
    unexpected = {
        f"{p}:{line}:{code}"
        for p, line, code in findings()
        if p.startswith(f"{case}/") and code in FAMILY and (p, line, code) not in marked
    }
    known = {entry for entry in KNOWN_UNEXPECTED if entry.startswith(f"{case}/")}
    assert unexpected - known == set(), "copy findings on lines that expect none"
    assert known - unexpected == set(), "gone from the findings: remove from KNOWN_UNEXPECTED"


def test_battery_shape() -> None:
    """Every case parses, has a positive or a look-alike, and the known lists name real ids."""
    assert 40 <= len(CASES) <= 60
    for case in CASES:
        for path in _files(case):
            compile((CASES_DIR / path).read_text(encoding="utf-8"), path, "exec")
        assert any(e.path.startswith(f"{case}/") for e in expectations()), case
    ids = {e.id for e in expectations()}
    assert set(KNOWN_MISSES) - ids == set()


def _report_today() -> None:
    """``python tests/test_variants_copies.py``: what fails now, per family."""
    found = findings()
    for e in expectations():
        if e.kind != "allow" and ((e.path, e.line, e.code) in found) != e.wants_finding:
            print(f"{'miss' if e.wants_finding else 'false alarm':11}  {e.id}")
    marked = {(e.path, e.line, e.code) for e in expectations()}
    for p, line, code in sorted(found - marked):
        if code in FAMILY:
            print(f"unexpected   {p}:{line}:{code}")


if __name__ == "__main__":
    _report_today()

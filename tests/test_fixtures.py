"""Every rule's fixture pair: before is flagged, after is what --fix writes (or the hand-written
recommended form for rules without a fix), and both compute the same outputs on the CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from h2dlint.config import Overrides, SettingsResolver
from h2dlint.diagnostics import FixSafety
from h2dlint.engine import EnabledRule, check_text
from h2dlint.fixer import fix_text
from h2dlint.registry import all_rules
from h2dlint.rule import Rule

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RULES = {code: rule for code, rule in all_rules().items() if rule.has_fixture}


def _pair(code: str) -> tuple[Path, Path]:
    return FIXTURES / code / "before.py", FIXTURES / code / "after.py"


def _enabled(rule: type[Rule]) -> tuple[EnabledRule, ...]:
    return (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_has_a_fixture_pair(code: str) -> None:
    before, after = _pair(code)
    assert before.is_file() and after.is_file(), f"fixtures/{code}/before.py and after.py"


@pytest.mark.parametrize("code", sorted(RULES))
def test_before_is_flagged_and_after_is_not(code: str) -> None:
    before, after = _pair(code)
    rule = _enabled(RULES[code])
    flagged = [f.code for f in check_text(before.read_text(encoding="utf-8"), str(before), rule)]
    assert code in flagged, f"{before} does not show {code}"
    remaining = [f.code for f in check_text(after.read_text(encoding="utf-8"), str(after), rule)]
    assert remaining == [], f"{after} still has {remaining}"


@pytest.mark.parametrize(
    "code", sorted(c for c, r in RULES.items() if r.fix_safety is not FixSafety.NONE)
)
def test_after_is_exactly_what_fix_writes(code: str) -> None:
    before, after = _pair(code)
    text = before.read_text(encoding="utf-8")
    # With the line length `h2dlint check` gives the fixtures: this repository's [tool.ruff].
    options = SettingsResolver(Overrides(), None, FIXTURES.parent).for_directory(before.parent)
    outcome = fix_text(
        text, str(before), _enabled(RULES[code]), unsafe=True, options=options.job_analysis
    )
    assert outcome.text == after.read_text(encoding="utf-8")


@pytest.mark.parametrize("code", sorted(RULES))
def test_before_and_after_compute_the_same_on_the_cpu(code: str) -> None:
    pytest.importorskip("torch", reason="the fixtures need torch (pip install torch)")
    from h2dlint.verify.compare import compare_outputs
    from h2dlint.verify.fixtures import run_fixture_on_cpu

    before, after = _pair(code)
    if "\nREQUIRES_CUDA = True" in after.read_text(encoding="utf-8"):
        pytest.skip(f"fixtures/{code}/after.py needs CUDA (pinned memory written by the fix)")
    difference = compare_outputs(run_fixture_on_cpu(before), run_fixture_on_cpu(after))
    assert difference is None, difference


# Race pairs: a side defines ``expected(state)`` (the verify contract's race pairs).
RACE_PAIRS = sorted(
    code
    for code in RULES
    if any("\ndef expected(" in path.read_text(encoding="utf-8") for path in _pair(code))
)


def test_the_race_rules_have_race_pairs() -> None:
    assert {"HTD401", "HTD402"} <= set(RACE_PAIRS)


@pytest.mark.parametrize("code", RACE_PAIRS)
def test_race_pairs_give_the_expected_outputs_on_the_cpu(code: str) -> None:
    """A race pair (its fixtures define ``expected(state)``): on the CPU no copy is
    asynchronous, so both sides must give the expected outputs; on a GPU ``before`` must not
    (``h2dlint verify``)."""
    pytest.importorskip("torch", reason="the fixtures need torch (pip install torch)")
    from h2dlint.verify.compare import compare_outputs
    from h2dlint.verify.fixtures import run_fixture_on_cpu_with_expected

    if any("\nREQUIRES_CUDA = True" in p.read_text(encoding="utf-8") for p in _pair(code)):
        pytest.skip(f"fixtures/{code} needs CUDA")
    sides = [run_fixture_on_cpu_with_expected(path) for path in _pair(code)]
    for path, (outputs, expected) in zip(_pair(code), sides, strict=True):
        assert expected is not None, f"{path} defines no expected(state)"
        difference = compare_outputs(outputs, expected)
        assert difference is None, f"{path}: {difference}"

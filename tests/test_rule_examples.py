"""Every rule's own examples, run through the real engine: invalid ones get exactly the reports
they state, valid ones none, and expected fixes match exactly."""

from __future__ import annotations

import pytest

from h2dlint.engine import EnabledRule, check_text
from h2dlint.fixer import fix_text
from h2dlint.registry import all_rules
from h2dlint.rule import Invalid, Rule, Valid

RULES = list(all_rules().values())


def _enabled(rule: type[Rule]) -> tuple[EnabledRule, ...]:
    return (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)


def _cases(kind: str) -> list[object]:
    return [
        pytest.param(rule, example, id=f"{rule.code}-{kind}-{index}")
        for rule in RULES
        for index, example in enumerate(getattr(rule, kind))
    ]


@pytest.mark.parametrize(("rule", "example"), _cases("invalid"))
def test_invalid_example_is_flagged(rule: type[Rule], example: Invalid) -> None:
    """Exactly the reports the example states: each one's code and range where it marks them
    (carets), else the one report's code and start."""
    findings = check_text(example.code, "example.py", _enabled(rule))
    assert not [f for f in findings if f.code.startswith("E9")], findings
    if example.reports:
        got = sorted(
            (f.code, f.start.row, f.start.column, f.end.row, f.end.column) for f in findings
        )
        want = sorted((code or rule.code, *place) for code, *place in example.reports)
    else:
        got = sorted((f.code, f.start.row, f.start.column, 0, 0) for f in findings)
        starts = [(example.line, example.column), *example.also_at]
        want = sorted((rule.code, row, column, 0, 0) for row, column in starts)
    assert got == want, f"{rule.code}: reports (code, start, end) differ from the example's"
    if example.message_contains is not None:
        messages = [f.message for f in findings if f.code == rule.code]
        assert any(example.message_contains in m for m in messages), messages


@pytest.mark.parametrize(("rule", "example"), _cases("invalid"))
def test_invalid_example_fix(rule: type[Rule], example: Invalid) -> None:
    outcome = fix_text(example.code, "example.py", _enabled(rule), unsafe=True)
    if example.expected_fix is None:
        assert outcome.text == example.code, "rule fixed an example that expects no fix"
    else:
        assert outcome.text == example.expected_fix
        # A fix must be complete: fixing again changes nothing.
        again = fix_text(outcome.text, "example.py", _enabled(rule), unsafe=True)
        assert again.text == outcome.text


@pytest.mark.parametrize(("rule", "example"), _cases("valid"))
def test_valid_example_is_not_flagged(rule: type[Rule], example: Valid) -> None:
    findings = check_text(example.code, "example.py", _enabled(rule))
    assert findings == [], findings


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_has_examples_both_ways(rule: type[Rule]) -> None:
    assert len(rule.invalid) >= 8, "a rule shows at least 8 things it flags"
    assert len(rule.valid) >= 8, "a rule shows at least 8 look-alikes it leaves alone"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_documentation_has_ruff_sections(rule: type[Rule]) -> None:
    doc = rule.documentation()
    for section in (
        "## What it does",
        "## Why is this bad?",
        "## Example",
        "## Use instead",
        "## Fix safety",
    ):
        assert section in doc, f"{rule.code} docs lack {section!r}"


def test_marked_example_gives_its_code_and_reports() -> None:
    example = Invalid(
        """
        import torch
        for row in rows:
            row.to("cuda")
        #   ^^^^^^^^^^^^^^
            torch.cat(
            ^^^^^^^^^^ HTD104
                parts
            ).cuda()
        # ...^^^^^^^
        """,
        expected_fix="""
        fixed
        """,
    )
    assert example.code == (
        'import torch\nfor row in rows:\n    row.to("cuda")\n    torch.cat(\n        parts\n'
        "    ).cuda()\n"
    )
    assert example.reports == ((None, 3, 5, 3, 19), ("HTD104", 4, 5, 6, 13))
    assert (example.line, example.column) == (3, 5)
    assert example.expected_fix == "fixed\n"
    assert Valid("\n    x = 1\n    ").code == "x = 1\n"
    assert Invalid("x\n", 1, 1).code == "x\n"  # the older form is taken as it is


def test_an_example_without_marks_is_refused() -> None:
    # Resolved on first use (importing a rule does not read its examples).
    example = Invalid("""
        x = 1
        """)
    with pytest.raises(ValueError, match="marks no report"):
        _ = example.reports

"""The engine with rules of the tests' own: one traversal, lazy metadata, crash isolation, and the
fix loop (overlapping fixes, bounded passes)."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from h2dlint import parsing
from h2dlint.context import Positions
from h2dlint.diagnostics import FixSafety
from h2dlint.engine import EnabledRule, check_text
from h2dlint.fixer import MAX_PASSES, fix_text
from h2dlint.rule import Rule


class RenameCall(Rule):
    """## What it does
    Test rule: calls of `old` become calls of `new`."""

    code = "HTD991"
    name = "rename-call"
    message = "call of old"
    fix_safety = FixSafety.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "old":
            self.report(node, replacements=[(node, node.with_changes(func=cst.Name("new")))])


class RenameArg(Rule):
    """## What it does
    Test rule: the name `x` becomes `y` (nested inside RenameCall's node)."""

    code = "HTD992"
    name = "rename-arg"
    message = "x"
    fix_safety = FixSafety.UNSAFE

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "x":
            self.report(node, replacements=[(node, node.with_changes(value="y"))])


class Crashes(Rule):
    """## What it does
    Test rule that fails on every call."""

    code = "HTD993"
    name = "crashes"
    message = "never"

    def visit_Call(self, node: cst.Call) -> None:
        raise ZeroDivisionError("boom")


class GrowsForever(Rule):
    """## What it does
    Test rule whose fix never converges."""

    code = "HTD994"
    name = "grows-forever"
    message = "grow"
    fix_safety = FixSafety.SAFE

    def visit_Name(self, node: cst.Name) -> None:
        if node.value.startswith("a"):
            self.report(node, replacements=[(node, node.with_changes(value=node.value + "a"))])


class CountsTraversals(Rule):
    """## What it does
    Test rule that counts how often the module is entered."""

    code = "HTD995"
    name = "counts"
    message = "count"
    seen = 0

    def visit_Module(self, node: cst.Module) -> None:
        type(self).seen += 1


def rules(*classes: type[Rule]) -> tuple[EnabledRule, ...]:
    return tuple(EnabledRule(c) for c in classes)


def test_all_rules_share_one_parse_and_one_traversal(monkeypatch: pytest.MonkeyPatch) -> None:
    parses = []
    real_parse = cst.parse_module
    monkeypatch.setattr(parsing.cst, "parse_module", lambda t: parses.append(1) or real_parse(t))
    CountsTraversals.seen = 0
    findings = check_text("old(x)\n", "m.py", rules(RenameCall, RenameArg, CountsTraversals))
    assert sorted(f.code for f in findings) == ["HTD991", "HTD992"]
    assert len(parses) == 1
    assert CountsTraversals.seen == 1


def test_positions_are_not_computed_when_nothing_is_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = []
    real = Positions.of
    monkeypatch.setattr(Positions, "of", lambda *a, **k: built.append(1) or real(*a, **k))
    assert check_text("print(1)\n", "m.py", rules(RenameCall)) == []
    assert built == []
    check_text("old(1)\n", "m.py", rules(RenameCall))
    assert built  # positions were needed to report


def test_libcst_metadata_is_never_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    resolved = []
    real = MetadataWrapper.resolve
    monkeypatch.setattr(MetadataWrapper, "resolve", lambda s, p: resolved.append(p) or real(s, p))
    assert [f.code for f in check_text("z = old(1)\n", "m.py", rules(RenameCall))] == ["HTD991"]
    assert resolved == []


def test_a_crashing_rule_is_reported_and_others_still_run() -> None:
    findings = check_text("old(1)\nold(2)\n", "m.py", rules(Crashes, RenameCall))
    codes = [f.code for f in findings]
    assert codes.count("HTD991") == 2
    assert codes.count("E900") == 1
    (error,) = [f for f in findings if f.code == "E900"]
    assert "HTD993" in error.message and "ZeroDivisionError" in error.message


def test_overlapping_fixes_all_apply_over_passes() -> None:
    outcome = fix_text("old(x)\nold(1)\n", "m.py", rules(RenameCall, RenameArg), unsafe=True)
    assert outcome.text == "new(y)\nnew(1)\n"
    assert outcome.applied_by_code == {"HTD991": 2, "HTD992": 1}
    assert outcome.findings == []


def test_unsafe_fixes_need_the_flag() -> None:
    outcome = fix_text("old(x)\n", "m.py", rules(RenameCall, RenameArg), unsafe=False)
    assert outcome.text == "new(x)\n"
    assert [f.code for f in outcome.findings] == ["HTD992"]
    assert outcome.findings[0].fix is not None
    assert outcome.findings[0].fix.safety is FixSafety.UNSAFE


def test_fix_loop_is_bounded() -> None:
    outcome = fix_text("a = 1\n", "m.py", rules(GrowsForever))
    assert outcome.text == "a" * (MAX_PASSES + 1) + " = 1\n"
    cst.parse_module(outcome.text)


def test_findings_carry_edits_for_reporters() -> None:
    (finding,) = check_text("z = old(1)\n", "m.py", rules(RenameCall))
    assert finding.fix is not None
    (edit,) = finding.fix.edits
    # The smallest region the fix changes, as applying it writes it.
    assert edit.content == "new"
    assert (edit.start.row, edit.start.column, edit.end.column) == (1, 5, 8)
    assert finding.source_line == "z = old(1)"


class IndentedRewrite(Rule):
    """## What it does
    Test rule replacing a whole statement with a multi-line one."""

    code = "HTD996"
    name = "indented-rewrite"
    message = "rewrite"
    fix_safety = FixSafety.SAFE

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if "old" in cst.Module(body=[node]).code:
            loop = cst.parse_statement("for _i in range(2):\n    new(_i)\n")
            self.report(node, replacements=[(node, loop)])


@pytest.mark.parametrize(
    "text",
    [
        "def f():\n    if x:\n        # comment\n        old(1)  # trailing\n    return 2\n",
        "z = 1\nold(1)\n",
        "class A:\n    def f(self):\n        old(\n            1,\n        )\n",
    ],
)
def test_reported_edit_reproduces_the_fix_exactly(text: str) -> None:
    (finding,) = check_text(text, "m.py", rules(IndentedRewrite))
    assert finding.fix is not None
    (edit,) = finding.fix.edits
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    begin = starts[edit.start.row - 1] + edit.start.column - 1
    end = starts[edit.end.row - 1] + edit.end.column - 1
    edited = text[:begin] + edit.content + text[end:]
    assert edited == fix_text(text, "m.py", rules(IndentedRewrite)).text

"""Confidence end to end: a MEDIUM finding survives the engine, the cache and every mode, and
``--min-confidence`` / ``min-confidence`` hide it, keep --fix off it and decide the exit code.

The shipped rules report only HIGH findings so far, so a test rule that reports both is
registered here in place of the real ones: ``sure()`` is a HIGH finding, ``guess()`` a MEDIUM
one, and the fix of either renames the call to ``done()``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner, Result

import h2dlint.runner
from h2dlint import confidence, registry
from h2dlint.cache import ResultCache
from h2dlint.cli import main
from h2dlint.diagnostics import Confidence, Finding, FixSafety, Location
from h2dlint.engine import check_text
from h2dlint.jobs import EnabledRule, FileJob, FileResult, Mode
from h2dlint.pipeline import process
from h2dlint.rule import Rule

SOURCE = "sure()\nguess()\n"
ONLY_GUESS = "x = 1\nguess()\n"


class GuessRule(Rule):
    """## What it does
    Flags `sure()` (proven) and `guess()` (inferred), for the confidence tests.
    """

    code = "HTD998"
    name = "guess-rule"
    message = "Call to rename"
    fix_safety = FixSafety.SAFE
    fix_message = "Rename it to `done()`"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Name) or func.value not in ("sure", "guess"):
            return
        if func.value == "sure":
            self.report(node, "`sure()` is called", replacements=[(func, cst.Name("done"))])
            return
        self.report(
            node,
            "`guess()` is probably called on a host tensor; a `.cpu()` would make it certain",
            replacements=[(func, cst.Name("done"))],
            confidence=Confidence.MEDIUM,
        )


@pytest.fixture(autouse=True)
def guess_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test rule as the only registered rule, for the CLI, the catalogue and the reporters
    (a cached function, as the catalogue asks whether the registry is loaded)."""
    monkeypatch.setattr(registry, "all_rules", functools.cache(lambda: {"HTD998": GuessRule}))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "b.py").write_text(ONLY_GUESS)
    return tmp_path


def lint(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(
        main, ["-j1", "--no-color", *args], input=stdin, catch_exceptions=False
    )


def reported(result: Result) -> list[tuple[str, int, str]]:
    return [
        (Path(f["filename"]).name, f["location"]["row"], f["confidence"])
        for f in json.loads(result.stdout)
    ]


# -- the threshold -----------------------------------------------------------------------------
def finding(level: Confidence) -> Finding:
    at = Location(1, 1)
    return Finding("a.py", "HTD998", "m", at, at, confidence=level)


def test_medium_shows_everything_and_high_only_high() -> None:
    high, medium = finding(Confidence.HIGH), finding(Confidence.MEDIUM)
    assert confidence.DEFAULT is Confidence.MEDIUM
    assert confidence.shown([high, medium], Confidence.MEDIUM) == ([high, medium], 0)
    assert confidence.shown([high, medium], Confidence.HIGH) == ([high], 1)
    assert confidence.meets(Confidence.HIGH, Confidence.HIGH)
    assert not confidence.meets(Confidence.MEDIUM, Confidence.HIGH)


@pytest.mark.parametrize("text", ["high", "HIGH", " High "])
def test_parse_accepts_any_case(text: str) -> None:
    assert confidence.parse(text) is Confidence.HIGH


def test_parse_refuses_other_words() -> None:
    with pytest.raises(ValueError, match="expected one of 'high', 'medium', got 'low'"):
        confidence.parse("low")


# -- the engine and the pipeline ---------------------------------------------------------------
def test_a_rule_reports_medium_through_the_engine() -> None:
    findings = check_text(SOURCE, "a.py", [EnabledRule(GuessRule)])
    assert [(f.start.row, f.confidence) for f in findings] == [
        (1, Confidence.HIGH),
        (2, Confidence.MEDIUM),
    ]
    # The cache's form keeps it.
    assert [Finding.from_dict("a.py", f.to_dict()).confidence for f in findings] == [
        Confidence.HIGH,
        Confidence.MEDIUM,
    ]


def fix_job(text: str, mode: Mode, threshold: Confidence, path: Path) -> FileResult:
    path.write_text(text)
    job = FileJob(
        path=str(path),
        display=path.name,
        data=text.encode(),
        rules=(EnabledRule(GuessRule),),
        mode=mode,
        min_confidence=threshold,
    )
    return process(job)


def test_the_pipeline_fixes_only_findings_at_the_threshold(tmp_path: Path) -> None:
    result = fix_job(SOURCE, Mode.FIX, Confidence.HIGH, tmp_path / "a.py")
    assert (tmp_path / "a.py").read_text() == "done()\nguess()\n"
    assert result.fixed_by_code == {"HTD998": 1}
    # The worker returns every finding left, the hidden one too: the runner filters.
    assert [(f.start.row, f.confidence) for f in result.findings] == [(2, Confidence.MEDIUM)]
    result = fix_job(SOURCE, Mode.FIX, Confidence.MEDIUM, tmp_path / "a.py")
    assert (tmp_path / "a.py").read_text() == "done()\ndone()\n"
    assert result.findings == []


# -- the command line --------------------------------------------------------------------------
def test_default_shows_medium_findings_tagged(project: Path) -> None:
    result = lint("--no-cache", "a.py")
    assert result.exit_code == 1
    assert "a.py:1:1: HTD998 [*] `sure()` is called" in result.stdout
    assert "a.py:2:1: HTD998 [*] [medium] `guess()` is probably called" in result.stdout
    assert "Found 2 findings (2 fixable, 1 medium confidence)." in result.stdout


def test_min_confidence_high_hides_medium_and_says_so(project: Path) -> None:
    result = lint("--no-cache", "--min-confidence", "high", "a.py")
    assert result.exit_code == 1
    assert "[medium]" not in result.stdout
    assert result.stdout.splitlines()[-2:] == [
        "Found 1 finding (1 fixable).",
        "1 medium-confidence finding not shown; --min-confidence medium shows them.",
    ]


def test_confidence_is_the_same_option(project: Path) -> None:
    """`--confidence high`, as the issue that asked for the filter spells it, is the same option."""
    spelled = lint("--no-cache", "--confidence", "high", "a.py")
    assert spelled.exit_code == 1
    assert spelled.stdout == lint("--no-cache", "--min-confidence", "high", "a.py").stdout


def test_exit_code_follows_the_findings_shown(project: Path) -> None:
    assert lint("--no-cache", "b.py").exit_code == 1
    hidden = lint("--no-cache", "--min-confidence", "high", "b.py")
    assert hidden.exit_code == 0
    assert hidden.stdout.startswith("All checks passed!\n")


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_hidden_findings_are_in_no_format(project: Path, fmt: str) -> None:
    shown = lint("--no-cache", "--output-format", fmt, "b.py")
    hidden = lint("--no-cache", "--output-format", fmt, "--min-confidence", "HIGH", "b.py")
    assert "probably called" in shown.stdout
    assert "probably called" not in hidden.stdout


def test_json_reports_confidence(project: Path) -> None:
    result = lint("--no-cache", "--output-format", "json", ".")
    assert reported(result) == [("a.py", 1, "high"), ("a.py", 2, "medium"), ("b.py", 2, "medium")]


def test_fix_leaves_findings_it_does_not_show_alone(project: Path) -> None:
    result = lint("--no-cache", "--fix", "--min-confidence", "high", ".")
    assert (project / "a.py").read_text() == "done()\nguess()\n"
    assert (project / "b.py").read_text() == ONLY_GUESS
    assert result.exit_code == 0  # nothing it shows remains
    assert "Fixed 1 finding (0 remaining)." in result.stdout
    assert "2 medium-confidence findings not shown" in result.stdout
    everything = lint("--no-cache", "--fix", ".")
    assert (project / "a.py").read_text() == "done()\ndone()\n"
    assert (project / "b.py").read_text() == "x = 1\ndone()\n"
    assert everything.exit_code == 0


def test_diff_shows_only_the_fixes_of_shown_findings(project: Path) -> None:
    result = lint("--no-cache", "--diff", "--min-confidence", "high", ".")
    assert "+done()" in result.stdout
    assert "-guess()" not in result.stdout
    assert result.exit_code == 1
    assert (project / "a.py").read_text() == SOURCE
    nothing = lint("--no-cache", "--diff", "--min-confidence", "high", "b.py")
    assert nothing.stdout == ""
    assert nothing.exit_code == 0


def test_add_noqa_suppresses_only_the_findings_shown(project: Path) -> None:
    result = lint("--no-cache", "--add-noqa", "--min-confidence", "high", "a.py")
    assert (project / "a.py").read_text() == "sure()  # noqa: HTD998\nguess()\n"
    assert result.exit_code == 0
    assert result.stderr == "Added 1 noqa directive in 1 file.\n"
    assert "1 medium-confidence finding not shown" in result.stdout


def test_stdin_follows_the_threshold(project: Path) -> None:
    result = lint("--min-confidence", "high", "--output-format", "json", "-", stdin=SOURCE)
    assert [(f["location"]["row"], f["confidence"]) for f in json.loads(result.stdout)] == [
        (1, "high")
    ]
    fixed = lint("--min-confidence", "high", "--fix", "-", stdin=SOURCE)
    assert fixed.stdout == "done()\nguess()\n"


def test_unknown_level_is_a_usage_error(project: Path) -> None:
    result = lint("--no-cache", "--min-confidence", "low", "a.py")
    assert result.exit_code == 2
    assert "'low' is not one of 'high', 'medium'" in result.output


# -- configuration -----------------------------------------------------------------------------
def test_config_key_sets_the_threshold_and_the_command_line_wins(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.h2dlint]\nmin-confidence = "high"\n')
    assert reported(lint("--no-cache", "--output-format", "json", ".")) == [("a.py", 1, "high")]
    both = lint("--no-cache", "--output-format", "json", "--min-confidence", "medium", ".")
    assert len(reported(both)) == 3


def test_config_threshold_applies_per_directory(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "c.py").write_text(ONLY_GUESS)
    (project / "sub" / "h2dlint.toml").write_text('min-confidence = "high"\n')
    result = lint("--no-cache", "--output-format", "json", ".")
    assert [name for name, _, _ in reported(result)] == ["a.py", "a.py", "b.py"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"low"', "min-confidence: expected one of 'high', 'medium', got 'low'"),
        ("1", "min-confidence: expected a string, got 1"),
    ],
)
def test_bad_config_value_names_the_key(project: Path, value: str, message: str) -> None:
    (project / "pyproject.toml").write_text(f"[tool.h2dlint]\nmin-confidence = {value}\n")
    result = lint("--no-cache", "a.py")
    assert result.exit_code == 2
    assert message in result.output


# -- the cache ---------------------------------------------------------------------------------
@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    real_process = h2dlint.runner.process

    def recording(job: FileJob) -> FileResult:
        names.append(job.display)
        return real_process(job)

    monkeypatch.setattr(h2dlint.runner, "process", recording)
    return names


def test_warm_run_keeps_confidence(project: Path, checked: list[str]) -> None:
    cache = str(project / "cache")
    cold = lint("--cache-dir", cache, "--output-format", "json", ".")
    assert sorted(checked) == ["a.py", "b.py"]
    checked.clear()
    warm = lint("--cache-dir", cache, "--output-format", "json", ".")
    assert checked == []
    assert warm.stdout == cold.stdout
    assert ("a.py", 2, "medium") in reported(warm)


def test_the_cache_holds_every_finding_and_the_threshold_applies_after(
    project: Path, checked: list[str]
) -> None:
    cache = project / "cache"
    high = lint("--cache-dir", str(cache), "--output-format", "json", "--min-confidence", "high")
    assert reported(high) == [("a.py", 1, "high")]
    stored = ResultCache(cache, lambda _: None).entries.values()
    assert sorted(f["confidence"] for entry in stored for f in entry["findings"]) == [
        "high",
        "medium",
        "medium",
    ]
    checked.clear()
    everything = lint("--cache-dir", str(cache), "--output-format", "json")
    assert checked == []  # answered from the cache, medium findings included
    assert len(reported(everything)) == 3
    again = lint("--cache-dir", str(cache), "--min-confidence", "high", "b.py")
    assert checked == []
    assert again.exit_code == 0


def test_fix_with_a_warm_cache_still_skips_hidden_findings(
    project: Path, checked: list[str]
) -> None:
    cache = str(project / "cache")
    lint("--cache-dir", cache, ".")
    checked.clear()
    # Only b.py's hidden finding has a fix: the cache answers for b.py, a.py is fixed.
    result = lint("--cache-dir", cache, "--fix", "--min-confidence", "high", ".")
    assert checked == ["a.py"]
    assert (project / "b.py").read_text() == ONLY_GUESS
    assert (project / "a.py").read_text() == "done()\nguess()\n"
    assert result.exit_code == 0

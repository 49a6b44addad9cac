"""The four output formats: text, JSON, GitHub workflow commands and SARIF."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import jsonschema
import pytest

import h2dlint
from h2dlint import registry
from h2dlint.diagnostics import (
    Confidence,
    Edit,
    Finding,
    FixInfo,
    FixSafety,
    Location,
    file_finding,
)
from h2dlint.reporters import FORMATS, ReportOptions, RunSummary, render
from h2dlint.reporters.github import render_github
from h2dlint.reporters.json_format import render_json
from h2dlint.reporters.sarif import render_sarif
from h2dlint.reporters.text import render_text
from h2dlint.rule import Rule

SCHEMA_PATH = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LINE = "    y = torch.tensor(d).to(dev, non_blocking=True)"


class FakeRule(Rule):
    """## What it does
    Flags a fake problem
    for the reporter tests.

    ## Why is this bad?
    It is not; it is a test.
    """

    code = "HTD999"
    name = "fake-rule"
    message = "Fake problem"
    fix_safety = FixSafety.SAFE


@pytest.fixture(autouse=True)
def fake_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "all_rules", lambda: {"HTD999": FakeRule})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    return tmp_path


def make_fix(safety: FixSafety = FixSafety.SAFE) -> FixInfo:
    edit = Edit("torch.tensor(d).pin_memory()", Location(3, 9), Location(3, 24))
    return FixInfo(safety, "Pin the tensor first", (edit,))


def make_finding(
    path: str,
    *,
    fix: FixInfo | None = None,
    start: tuple[int, int] = (3, 9),
    end: tuple[int, int] = (3, 51),
    source_line: str = LINE,
    code: str = "HTD999",
    message: str = "Fake problem",
    confidence: Confidence = Confidence.HIGH,
) -> Finding:
    return Finding(
        path=path,
        code=code,
        message=message,
        start=Location(*start),
        end=Location(*end),
        url=FakeRule.url() if code == "HTD999" else None,
        fix=fix,
        noqa_row=start[0] if code == "HTD999" else None,
        source_line=source_line,
        confidence=confidence,
    )


def opts(cwd: Path, **kwargs: object) -> ReportOptions:
    return ReportOptions(cwd=cwd, **kwargs)  # type: ignore[arg-type]


# -- text ------------------------------------------------------------------------------------------
def test_text_block_and_summary(project: Path) -> None:
    finding = make_finding(str(project / "src" / "a.py"), fix=make_fix())
    out = render_text([finding], RunSummary(), opts(project))
    assert out.splitlines() == [
        "src/a.py:3:9: HTD999 [*] Fake problem",
        "  |",
        f"3 | {LINE}",
        "  |         " + "^" * 42,
        "",
        "Found 1 finding (1 fixable).",
    ]
    assert out.endswith("\n")


def test_text_gutter_widens_with_row_number(project: Path) -> None:
    finding = make_finding("a.py", start=(120, 5), end=(120, 6))
    lines = render_text([finding], RunSummary(), opts(project)).splitlines()
    assert lines[:4] == ["a.py:120:5: HTD999 Fake problem", "    |", f"120 | {LINE}", "    |     ^"]


def test_text_path_outside_cwd_is_kept(tmp_path: Path) -> None:
    elsewhere = str(tmp_path / "other" / "b.py")
    out = render_text([make_finding(elsewhere)], RunSummary(), opts(tmp_path / "proj"))
    assert out.startswith(f"{elsewhere}:3:9: HTD999 Fake problem\n")


def test_text_relative_path_is_kept(project: Path) -> None:
    out = render_text([make_finding("src/b.py")], RunSummary(), opts(project))
    assert out.startswith("src/b.py:3:9: ")


def test_text_without_colour_has_no_escapes(project: Path) -> None:
    out = render_text([make_finding("a.py", fix=make_fix())], RunSummary(), opts(project))
    assert "\x1b" not in out


def test_text_colour_only_adds_escapes(project: Path) -> None:
    findings = [make_finding("a.py", fix=make_fix())]
    plain = render_text(findings, RunSummary(), opts(project))
    coloured = render_text(findings, RunSummary(), opts(project, color=True))
    assert "\x1b[" in coloured
    assert "\x1b[1ma.py\x1b[0m" in coloured  # bold path
    assert "\x1b[1;31mHTD999\x1b[0m" in coloured  # red code
    assert ANSI.sub("", coloured) == plain


@pytest.mark.parametrize(
    ("safety", "unsafe_fixes", "marked"),
    [
        (FixSafety.SAFE, False, True),
        (FixSafety.SAFE, True, True),
        (FixSafety.UNSAFE, False, False),
        (FixSafety.UNSAFE, True, True),
        (None, True, False),
    ],
)
def test_text_fix_marker(
    project: Path, safety: FixSafety | None, unsafe_fixes: bool, marked: bool
) -> None:
    fix = make_fix(safety) if safety else None
    out = render_text(
        [make_finding("a.py", fix=fix)], RunSummary(), opts(project, unsafe_fixes=unsafe_fixes)
    )
    header = out.splitlines()[0]
    assert header == (
        "a.py:3:9: HTD999 [*] Fake problem" if marked else "a.py:3:9: HTD999 Fake problem"
    )
    assert out.splitlines()[-1] == (
        "Found 1 finding (1 fixable)." if marked else "Found 1 finding."
    )


def test_text_tabs_expand_in_line_and_carets(project: Path) -> None:
    finding = make_finding("a.py", start=(1, 6), end=(1, 12), source_line="\tx = a.to(d)")
    lines = render_text([finding], RunSummary(), opts(project)).splitlines()
    assert lines[2] == "1 |     x = a.to(d)"
    assert lines[3] == "  |         ^^^^^^"


def test_text_wide_characters_shift_carets(project: Path) -> None:
    finding = make_finding("a.py", start=(1, 10), end=(1, 11), source_line='s = "日本" + x')
    lines = render_text([finding], RunSummary(), opts(project)).splitlines()
    # The two wide characters take two cells each, so "+" is printed at cell 11.
    assert lines[3] == "  |" + " " * 12 + "^"


def test_text_multiline_span_underlines_to_end_of_line(project: Path) -> None:
    finding = make_finding("a.py", start=(1, 5), end=(3, 2), source_line="x = f(")
    lines = render_text([finding], RunSummary(), opts(project)).splitlines()
    assert lines[3] == "  |     ^^"


def test_text_zero_width_span_has_one_caret(project: Path) -> None:
    finding = make_finding("a.py", start=(1, 7), end=(1, 7), source_line="x = f(")
    lines = render_text([finding], RunSummary(), opts(project)).splitlines()
    assert lines[3] == "  |       ^"


def test_text_control_characters_are_not_printed(project: Path) -> None:
    finding = make_finding("a.py", start=(1, 1), end=(1, 2), source_line="x\x1b[2J = 1")
    out = render_text([finding], RunSummary(), opts(project))
    assert "\x1b" not in out
    assert "1 | x\ufffd[2J = 1" in out


def test_text_file_level_finding_has_no_snippet(project: Path) -> None:
    finding = file_finding(str(project / "a.py"), "E902", "Permission denied")
    out = render_text([finding], RunSummary(), opts(project))
    assert out.splitlines() == ["a.py:1:1: E902 Permission denied", "", "Found 1 finding."]


def test_text_plural_summary(project: Path) -> None:
    findings = [make_finding("a.py", fix=make_fix()), make_finding("b.py")]
    out = render_text(findings, RunSummary(), opts(project))
    assert out.splitlines()[-1] == "Found 2 findings (1 fixable)."


def test_text_all_checks_passed(project: Path) -> None:
    assert render_text([], RunSummary(files_checked=3), opts(project)) == "All checks passed!\n"


def test_text_fixed_summary(project: Path) -> None:
    summary = RunSummary(fixed_by_code={"HTD999": 2, "HTD998": 1})
    assert render_text([], summary, opts(project)) == "Fixed 3 findings (0 remaining).\n"
    out = render_text(
        [make_finding("a.py")], RunSummary(fixed_by_code={"HTD999": 1}), opts(project)
    )
    assert out.splitlines()[-2:] == ["Found 1 finding.", "Fixed 1 finding (1 remaining)."]


def test_text_hidden_unsafe_fixes(project: Path) -> None:
    finding = make_finding("a.py", fix=make_fix(FixSafety.UNSAFE))
    out = render_text([finding], RunSummary(hidden_unsafe_fixes=2), opts(project))
    assert out.splitlines()[-2:] == [
        "Found 1 finding.",
        "2 hidden fixes can be enabled with the `--unsafe-fixes` option.",
    ]
    one = render_text([finding], RunSummary(hidden_unsafe_fixes=1), opts(project))
    assert one.splitlines()[-1] == "1 hidden fix can be enabled with the `--unsafe-fixes` option."
    shown = render_text(
        [finding], RunSummary(hidden_unsafe_fixes=1), opts(project, unsafe_fixes=True)
    )
    assert "hidden" not in shown


def test_text_statistics(project: Path) -> None:
    findings = [
        make_finding("a.py", fix=make_fix()),
        make_finding("a.py", start=(4, 1), end=(4, 2)),
        make_finding("b.py", code="HTD101", fix=make_fix(FixSafety.UNSAFE)),
        file_finding("c.py", "E999", "Syntax error: invalid syntax"),
        make_finding("d.py", code="HTD101"),
    ]
    out = render_text(findings, RunSummary(), opts(project, statistics=True))
    assert out.splitlines() == [
        "   2  HTD101",
        "   2  HTD999  [*] fake-rule",
        "   1  E999",
        "",
        "Found 5 findings (1 fixable).",
    ]


def test_text_statistics_marks_unsafe_fixes_when_enabled(project: Path) -> None:
    findings = [make_finding("a.py", fix=make_fix(FixSafety.UNSAFE))]
    out = render_text(findings, RunSummary(), opts(project, statistics=True, unsafe_fixes=True))
    assert out.splitlines()[0] == "   1  HTD999  [*] fake-rule"


def test_text_statistics_without_findings(project: Path) -> None:
    summary = RunSummary(files_checked=1)
    assert render_text([], summary, opts(project, statistics=True)) == "All checks passed!\n"


def test_nothing_checked_is_not_a_pass(project: Path) -> None:
    assert render_text([], RunSummary(), opts(project)) == "No files were checked.\n"


# -- JSON ------------------------------------------------------------------------------------------
def test_json_exact(project: Path) -> None:
    findings = [
        make_finding("src/a.py", fix=make_fix(FixSafety.UNSAFE)),
        file_finding(str(project / "b.py"), "E999", "Syntax error: invalid syntax", 2, 5),
    ]
    data = json.loads(render_json(findings, RunSummary(), opts(project)))
    assert data == [
        {
            "cell": None,
            "code": "HTD999",
            "confidence": "high",
            "end_location": {"column": 51, "row": 3},
            "filename": str((project / "src" / "a.py").resolve()),
            "fix": {
                "applicability": "unsafe",
                "message": "Pin the tensor first",
                "edits": [
                    {
                        "content": "torch.tensor(d).pin_memory()",
                        "location": {"column": 9, "row": 3},
                        "end_location": {"column": 24, "row": 3},
                    }
                ],
            },
            "location": {"column": 9, "row": 3},
            "message": "Fake problem",
            "noqa_row": 3,
            "severity": "warning",
            "url": FakeRule.url(),
        },
        {
            "cell": None,
            "code": "E999",
            "confidence": "high",
            "end_location": {"column": 5, "row": 2},
            "filename": str(project / "b.py"),
            "fix": None,
            "location": {"column": 5, "row": 2},
            "message": "Syntax error: invalid syntax",
            "noqa_row": None,
            "severity": "error",
            "url": None,
        },
    ]


def test_json_layout(project: Path) -> None:
    out = render_json([make_finding("a.py")], RunSummary(), opts(project))
    assert out.endswith("]\n")
    assert out.startswith('[\n  {\n    "cell": null,\n    "code": "HTD999",\n')


def test_json_empty(project: Path) -> None:
    assert render_json([], RunSummary(), opts(project)) == "[]\n"


def test_json_keeps_stdin_name(project: Path) -> None:
    data = json.loads(render_json([make_finding("-")], RunSummary(), opts(project)))
    assert data[0]["filename"] == "-"


# -- GitHub ----------------------------------------------------------------------------------------
def test_github_exact(project: Path) -> None:
    findings = [
        make_finding(str(project / "src" / "a.py")),
        file_finding("b.py", "E999", "Syntax error: invalid syntax", 2, 5),
    ]
    out = render_github(findings, RunSummary(files_checked=2), opts(project))
    assert out == (
        "::warning title=h2dlint (HTD999),file=src/a.py,line=3,col=9,endLine=3,endColumn=51"
        "::Fake problem\n"
        "::error title=h2dlint (E999),file=b.py,line=2,col=5,endLine=2,endColumn=5"
        "::Syntax error: invalid syntax\n"
    )


def test_github_escapes_message_and_properties(project: Path) -> None:
    finding = make_finding("dir:x,y/100%.py", message="50% of\r\nit: a, b")
    out = render_github([finding], RunSummary(), opts(project))
    assert out == (
        "::warning title=h2dlint (HTD999),file=dir%3Ax%2Cy/100%25.py,line=3,col=9,"
        "endLine=3,endColumn=51::50%25 of%0D%0Ait: a, b\n"
    )


def test_github_empty(project: Path) -> None:
    assert render_github([], RunSummary(files_checked=4), opts(project)) == ""


# -- SARIF -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


def sarif(
    findings: list[Finding], options: ReportOptions, validator: jsonschema.Draft4Validator
) -> dict:
    log = json.loads(render_sarif(findings, RunSummary(), options))
    validator.validate(log)
    return log


def test_sarif_log_and_rules(project: Path, sarif_validator: jsonschema.Draft4Validator) -> None:
    log = sarif([], opts(project / "src"), sarif_validator)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "h2dlint"
    assert driver["version"] == h2dlint.__version__
    # No unchecked web address: informationUri and helpUri must be absolute URIs, and the rule
    # pages are paths in the repository.
    assert "informationUri" not in driver
    assert [rule["id"] for rule in driver["rules"]] == ["HTD999", "E999", "E902", "E900"]
    assert driver["rules"][0] == {
        "id": "HTD999",
        "name": "fake-rule",
        "shortDescription": {"text": "Fake problem"},
        "fullDescription": {"text": "Flags a fake problem for the reporter tests."},
        "help": {"text": FakeRule.documentation(), "markdown": FakeRule.documentation()},
        "defaultConfiguration": {"level": "warning"},
        "properties": {"documentation": "docs/rules/HTD999.md"},
    }
    names = {rule["id"]: rule["name"] for rule in driver["rules"]}
    assert names["E999"] == "syntax-error"
    assert names["E902"] == "io-error"
    assert names["E900"] == "internal-error"
    levels = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in driver["rules"]}
    assert levels == {"HTD999": "warning", "E999": "error", "E902": "error", "E900": "error"}
    assert run["columnKind"] == "unicodeCodePoints"
    # The root is the git repository above the working directory.
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": project.as_uri() + "/"}}
    assert run["results"] == []


def test_sarif_result(project: Path, sarif_validator: jsonschema.Draft4Validator) -> None:
    finding = make_finding(str(project / "src" / "my file#1.py"))
    log = sarif([finding], opts(project / "src"), sarif_validator)
    (result,) = log["runs"][0]["results"]
    assert result == {
        "ruleId": "HTD999",
        "ruleIndex": 0,
        "level": "warning",
        "message": {"text": "Fake problem"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": "src/my%20file%231.py", "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": 3, "startColumn": 9, "endLine": 3, "endColumn": 51},
                }
            }
        ],
        "rank": 90.0,
        "properties": {"confidence": "high"},
    }


def test_sarif_relative_path_resolves_against_cwd(
    project: Path, sarif_validator: jsonschema.Draft4Validator
) -> None:
    log = sarif([make_finding("a.py")], opts(project / "src"), sarif_validator)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/a.py", "uriBaseId": "%SRCROOT%"}


def test_sarif_with_fixes(project: Path, sarif_validator: jsonschema.Draft4Validator) -> None:
    insert = Edit(".pin_memory()", Location(3, 24), Location(3, 24))
    delete = Edit("", Location(3, 30), Location(3, 49))
    fix = FixInfo(FixSafety.SAFE, "Pin the tensor first", (insert, delete))
    log = sarif([make_finding("src/a.py", fix=fix)], opts(project), sarif_validator)
    (result,) = log["runs"][0]["results"]
    artifact = {"uri": "src/a.py", "uriBaseId": "%SRCROOT%"}
    assert result["fixes"] == [
        {
            "description": {"text": "Pin the tensor first"},
            "artifactChanges": [
                {
                    "artifactLocation": artifact,
                    "replacements": [
                        {
                            "deletedRegion": {
                                "startLine": 3,
                                "startColumn": 24,
                                "endLine": 3,
                                "endColumn": 24,
                            },
                            "insertedContent": {"text": ".pin_memory()"},
                        },
                        {
                            "deletedRegion": {
                                "startLine": 3,
                                "startColumn": 30,
                                "endLine": 3,
                                "endColumn": 49,
                            },
                            "insertedContent": {"text": ""},
                        },
                    ],
                }
            ],
            "properties": {"applicability": "safe"},
        }
    ]


def test_sarif_without_fix_has_no_fixes(
    project: Path, sarif_validator: jsonschema.Draft4Validator
) -> None:
    log = sarif([make_finding("src/a.py")], opts(project), sarif_validator)
    assert "fixes" not in log["runs"][0]["results"][0]


def test_sarif_syntax_error(project: Path, sarif_validator: jsonschema.Draft4Validator) -> None:
    findings = [
        make_finding("src/a.py", fix=make_fix()),
        file_finding("src/b.py", "E999", "Syntax error: invalid syntax", 4, 7),
    ]
    log = sarif(findings, opts(project), sarif_validator)
    results = log["runs"][0]["results"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert results[1]["ruleId"] == "E999"
    assert rules[results[1]["ruleIndex"]]["id"] == "E999"
    assert results[1]["level"] == "error"
    region = results[1]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 4, "startColumn": 7}


def test_sarif_file_outside_root_is_absolute(
    tmp_path: Path, sarif_validator: jsonschema.Draft4Validator
) -> None:
    root = tmp_path / "repo"
    outside = tmp_path / "elsewhere" / "a b.py"
    log = sarif([make_finding(str(outside))], opts(root, root=root), sarif_validator)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": outside.as_uri()}
    assert "%20" in location["artifactLocation"]["uri"]


def test_sarif_explicit_root_wins(
    project: Path, sarif_validator: jsonschema.Draft4Validator
) -> None:
    options = opts(project, root=project / "src")
    log = sarif([make_finding("src/a.py")], options, sarif_validator)
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == (project / "src").as_uri() + "/"
    location = run["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "a.py", "uriBaseId": "%SRCROOT%"}


def test_sarif_root_defaults_to_cwd_outside_git(
    tmp_path: Path, sarif_validator: jsonschema.Draft4Validator
) -> None:
    cwd = tmp_path / "plain"
    if any((parent / ".git").exists() for parent in cwd.parents):
        pytest.skip("the temporary directory lies inside a git repository")
    log = sarif([make_finding("a.py")], opts(cwd), sarif_validator)
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == cwd.as_uri() + "/"


def test_sarif_unregistered_code_still_has_a_rule(
    project: Path, sarif_validator: jsonschema.Draft4Validator
) -> None:
    log = sarif([make_finding("a.py", code="HTD123")], opts(project), sarif_validator)
    run = log["runs"][0]
    (result,) = run["results"]
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "HTD123"


# -- confidence ------------------------------------------------------------------------------------
MEDIUM = Confidence.MEDIUM


def test_text_tags_medium_findings_only(project: Path) -> None:
    findings = [
        make_finding("a.py", fix=make_fix(), confidence=MEDIUM),
        make_finding("b.py", confidence=MEDIUM),
        make_finding("c.py", fix=make_fix()),
    ]
    lines = render_text(findings, RunSummary(), opts(project)).splitlines()
    headers = [line for line in lines if line.endswith("Fake problem")]
    # Ruff's [*] stays right after the code; the tag follows it; high stays unmarked.
    assert headers == [
        "a.py:3:9: HTD999 [*] [medium] Fake problem",
        "b.py:3:9: HTD999 [medium] Fake problem",
        "c.py:3:9: HTD999 [*] Fake problem",
    ]
    assert lines[-1] == "Found 3 findings (2 fixable, 2 medium confidence)."


def test_text_medium_summary_without_fixes(project: Path) -> None:
    out = render_text([make_finding("a.py", confidence=MEDIUM)], RunSummary(), opts(project))
    assert out.splitlines()[-1] == "Found 1 finding (1 medium confidence)."


def test_text_medium_tag_is_coloured_yellow(project: Path) -> None:
    findings = [make_finding("a.py", confidence=MEDIUM)]
    plain = render_text(findings, RunSummary(), opts(project))
    coloured = render_text(findings, RunSummary(), opts(project, color=True))
    assert "\x1b[33m[medium]\x1b[0m" in coloured
    assert ANSI.sub("", coloured) == plain


def test_text_says_how_many_findings_the_threshold_hid(project: Path) -> None:
    out = render_text([], RunSummary(files_checked=1, hidden_by_confidence=2), opts(project))
    assert out.splitlines() == [
        "All checks passed!",
        "2 medium-confidence findings not shown; --min-confidence medium shows them.",
    ]
    one = render_text([make_finding("a.py")], RunSummary(hidden_by_confidence=1), opts(project))
    assert one.splitlines()[-2:] == [
        "Found 1 finding.",
        "1 medium-confidence finding not shown; --min-confidence medium shows them.",
    ]
    quiet = render_text([], RunSummary(hidden_by_confidence=2), opts(project, quiet=True))
    assert quiet == ""


def test_text_statistics_count_medium_findings(project: Path) -> None:
    findings = [
        make_finding("a.py", fix=make_fix(), confidence=MEDIUM),
        make_finding("b.py"),
        make_finding("c.py", code="HTD101"),
    ]
    out = render_text(findings, RunSummary(), opts(project, statistics=True))
    assert out.splitlines() == [
        "   2  HTD999  [*] fake-rule (1 medium confidence)",
        "   1  HTD101",
        "",
        "Found 3 findings (1 fixable, 1 medium confidence).",
    ]


def test_json_confidence_per_finding(project: Path) -> None:
    findings = [make_finding("a.py", confidence=MEDIUM), make_finding("b.py")]
    data = json.loads(render_json(findings, RunSummary(), opts(project)))
    assert [record["confidence"] for record in data] == ["medium", "high"]
    # Every field Ruff writes is still there, with the same meaning.
    ruff_fields = {"cell", "code", "end_location", "filename", "fix", "location", "message"}
    assert ruff_fields | {"noqa_row", "url"} <= set(data[0])


def test_github_title_names_medium_confidence(project: Path) -> None:
    findings = [make_finding("a.py", confidence=MEDIUM), make_finding("b.py")]
    lines = render_github(findings, RunSummary(), opts(project)).splitlines()
    # The comma inside a property value is escaped as the Actions toolkit does.
    assert lines[0].startswith("::warning title=h2dlint (HTD999%2C medium confidence),file=a.py,")
    assert lines[1].startswith("::warning title=h2dlint (HTD999),file=b.py,")
    assert lines[0].endswith("::Fake problem")


def test_sarif_rank_and_confidence_property(
    project: Path, sarif_validator: jsonschema.Draft4Validator
) -> None:
    findings = [
        make_finding("a.py", confidence=MEDIUM, fix=make_fix()),
        make_finding("b.py"),
        file_finding("c.py", "E999", "Syntax error: invalid syntax"),
    ]
    log = sarif(findings, opts(project), sarif_validator)
    results = log["runs"][0]["results"]
    assert [(r["rank"], r["properties"], r["level"]) for r in results] == [
        (50.0, {"confidence": "medium"}, "warning"),
        (90.0, {"confidence": "high"}, "warning"),
        (90.0, {"confidence": "high"}, "error"),
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_tells_the_confidences_apart(project: Path, fmt: str) -> None:
    high = render(fmt, [make_finding("a.py")], RunSummary(), opts(project))
    medium = render(fmt, [make_finding("a.py", confidence=MEDIUM)], RunSummary(), opts(project))
    assert "medium" in medium
    assert "medium" not in high


# -- dispatcher ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_render_dispatches(project: Path, fmt: str) -> None:
    findings = [make_finding("a.py", fix=make_fix())]
    renderers = {
        "text": render_text,
        "full": render_text,
        "concise": lambda f, s, o: render_text(f, s, dataclasses.replace(o, concise=True)),
        "json": render_json,
        "github": render_github,
        "sarif": render_sarif,
    }
    options = opts(project)
    assert render(fmt, findings, RunSummary(), options) == renderers[fmt](
        findings, RunSummary(), options
    )

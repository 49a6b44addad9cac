"""--add-noqa: suppress every current finding where it is, so that only new ones fail a run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from h2dlint.cli import main
from h2dlint.diagnostics import Finding, Location, file_finding
from h2dlint.noqa import add_noqa

FLAGGED_LINE = "y = torch.tensor(ids).to(dev, non_blocking=True)"
FLAGGED = f"import torch\n\ndef f(ids, dev):\n    {FLAGGED_LINE}\n    return y\n"


def finding(row: int, code: str = "HTD102") -> Finding:
    return Finding("m.py", code, "message", Location(row, 1), Location(row, 2), noqa_row=row)


# -- the text edit ------------------------------------------------------------------------------
def test_appends_a_comment() -> None:
    edit = add_noqa("a = 1\nb = 2\n", [finding(2)])
    assert (edit.text, edit.lines, edit.unplaced) == ("a = 1\nb = 2  # noqa: HTD102\n", 1, ())


def test_several_codes_on_one_line_are_sorted_and_never_repeated() -> None:
    edit = add_noqa("a = 1   \n", [finding(1, "HTD201"), finding(1, "HTD102"), finding(1)])
    assert edit.text == "a = 1  # noqa: HTD102, HTD201\n"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("a = 1  # noqa: E501", "a = 1  # noqa: E501, HTD102"),
        ("a = 1  # noqa:E501,W291", "a = 1  # noqa:E501,W291, HTD102"),
        ("a = 1  # noqa: E501 W291", "a = 1  # noqa: E501 W291 HTD102"),
        ("a = 1  # noqa: E501  -- long URL", "a = 1  # noqa: E501, HTD102  -- long URL"),
        ("a = 1  # h2dlint: ignore[HTD101]", "a = 1  # h2dlint: ignore[HTD101, HTD102]"),
        ("a = 1  # h2dlint: ignore[HTD101, ]", "a = 1  # h2dlint: ignore[HTD101, HTD102]"),
        ("a = 1  # see issue 12", "a = 1  # see issue 12  # noqa: HTD102"),
        ("a = 1  # noqa: HTD102", "a = 1  # noqa: HTD102"),  # already there: no duplicate
        ("a = 1  # noqa: htd102", "a = 1  # noqa: htd102"),  # codes are read case-blind
        ("a = 1  # noqa: H2D002", "a = 1  # noqa: H2D002"),  # the old name of HTD102
    ],
)
def test_merges_with_the_comment_on_the_line(line: str, expected: str) -> None:
    edit = add_noqa(f"{line}\n", [finding(1)])
    assert edit.text == f"{expected}\n"
    assert edit.lines == (line != expected)


def test_keeps_every_line_ending() -> None:
    text = "a = 1\r\nb = 2\rc = 3\nd = 4"
    edit = add_noqa(text, [finding(2), finding(4)])
    assert edit.text == "a = 1\r\nb = 2  # noqa: HTD102\rc = 3\nd = 4  # noqa: HTD102"


@pytest.mark.parametrize(
    ("text", "row"),
    [
        ('s = """\nabc""" + f(x)\n', 1),  # the line ends inside a string
        ("x = (f(y) \\\n     + 1)\n", 1),  # a backslash continuation
        ('s = f"""{g(x)}\n"""\n', 1),  # inside a multi-line f-string
    ],
)
def test_leaves_lines_where_no_comment_can_go(text: str, row: int) -> None:
    edit = add_noqa(text, [finding(row)])
    assert (edit.text, edit.lines) == (text, 0)
    assert [f.noqa_row for f in edit.unplaced] == [row]


def test_the_line_a_string_ends_on_takes_a_comment() -> None:
    edit = add_noqa('s = """\nabc""" + f(x)\n', [finding(2)])
    assert edit.text == 's = """\nabc""" + f(x)  # noqa: HTD102\n'


def test_file_diagnostics_are_not_suppressible() -> None:
    edit = add_noqa("def f(:\n", [file_finding("m.py", "E999", "SyntaxError")])
    assert (edit.text, edit.lines, edit.unplaced) == ("def f(:\n", 0, ())


# -- the command --------------------------------------------------------------------------------
def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["--no-cache", *args], catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(FLAGGED)
    (tmp_path / "b.py").write_text(
        FLAGGED.replace(FLAGGED_LINE, f"{FLAGGED_LINE}  # noqa: E501")
        + f"\ndef g(ids, dev):\n    {FLAGGED_LINE}\n    return y\n"
    )
    (tmp_path / "clean.py").write_text("x = 1\n")
    return tmp_path


def test_add_noqa_suppresses_every_finding_then_only_new_ones_fail(project: Path) -> None:
    assert run(".").exit_code == 1
    result = run("--add-noqa", ".")
    assert result.exit_code == 0
    assert result.stderr == "Added 3 noqa directives in 2 files.\n"
    assert result.stdout == "All checks passed!\n"
    assert f"    {FLAGGED_LINE}  # noqa: HTD102\n" in (project / "a.py").read_text()
    b = (project / "b.py").read_text()
    assert f"    {FLAGGED_LINE}  # noqa: E501, HTD102\n" in b
    assert b.count("# noqa: HTD102\n") == 1
    assert (project / "clean.py").read_text() == "x = 1\n"
    assert run(".").exit_code == 0
    # Run again: nothing to add, nothing changes.
    before = (project / "b.py").read_bytes()
    again = run("--add-noqa", ".")
    assert (again.exit_code, again.stderr) == (0, "")
    assert (project / "b.py").read_bytes() == before
    # A new finding fails the run.
    (project / "c.py").write_text(FLAGGED)
    assert run(".").exit_code == 1


def test_add_noqa_reports_what_it_could_not_suppress(project: Path) -> None:
    (project / "d.py").write_text(
        "import torch\n\ndef f(ids, dev):\n    y = torch.tensor(ids) \\\n"
        "        .to(dev, non_blocking=True)\n    return y\n"
    )
    before = (project / "d.py").read_bytes()
    result = run("--add-noqa", "--output-format", "concise", "d.py")
    assert result.exit_code == 1
    assert (project / "d.py").read_bytes() == before
    assert result.stdout.startswith("d.py:4:9: HTD102 ")
    assert "1 finding could not be suppressed where reported" in result.stderr


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes whatever the mode says"
)
def test_add_noqa_does_not_write_a_read_only_file(project: Path) -> None:
    path = project / "a.py"
    path.chmod(0o444)
    try:
        result = run("--add-noqa", "a.py")
    finally:
        path.chmod(0o644)
    assert result.exit_code == 1
    assert path.read_text() == FLAGGED
    assert "a.py:1:1: E902 noqa comments not written: file is read-only" in result.stdout


@pytest.mark.parametrize("other", [["--fix"], ["--diff"], ["--fix-only"], ["-"]])
def test_add_noqa_cannot_be_combined_with_fixing_or_stdin(project: Path, other: list[str]) -> None:
    result = run("--add-noqa", *other)
    assert result.exit_code == 2
    assert "--add-noqa" in result.stderr
    assert (project / "a.py").read_text() == FLAGGED

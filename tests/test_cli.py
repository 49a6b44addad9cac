"""The command line as users type it: spellings, formats, exit codes and output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from h2dlint import __version__
from h2dlint.cli import main
from h2dlint.registry import all_rules

FLAGGED = (
    "import torch\n\ndef f(ids, dev):\n    return torch.tensor(ids).to(dev, non_blocking=True)\n"
)
CLEAN = "import torch\n\ndef f(x, dev):\n    return x.to(dev, non_blocking=True)\n"
BROKEN = "def f(:\n    pass\n"


def run(args: list[str], stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, [*args], input=stdin, catch_exceptions=False)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flagged.py").write_text(FLAGGED)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_shorthand_and_check_subcommand_agree(tree: Path) -> None:
    short = run(["--no-cache", "flagged.py"])
    explicit = run(["check", "--no-cache", "flagged.py"])
    assert short.exit_code == explicit.exit_code == 1
    assert short.output == explicit.output
    assert "flagged.py:4:12: HTD102 " in short.output


def test_text_output_shows_source_caret_and_summary(tree: Path) -> None:
    result = run(["--no-cache", "flagged.py"])
    lines = result.output.splitlines()
    assert lines[0].startswith("flagged.py:4:12: HTD102 `non_blocking=True` copy from pageable")
    assert "4 |     return torch.tensor(ids).to(dev, non_blocking=True)" in result.output
    caret = next(line for line in lines if "^" in line)
    assert caret.index("^") == lines[2].index("torch.tensor")
    assert lines[-1] == "Found 1 finding."
    assert "\x1b[" not in result.output  # no colour off a TTY


def test_color_always_forces_ansi_and_never_turns_it_off(tree: Path) -> None:
    assert "\x1b[" in run(["--no-cache", "--color", "always", "flagged.py"]).output
    assert "\x1b[" in run(["--no-cache", "--color=always", "flagged.py"]).output
    assert "\x1b[" not in run(["--no-cache", "--color", "never", "flagged.py"]).output
    assert "\x1b[" not in run(["--no-cache", "--no-color", "flagged.py"]).output  # the old flag


def test_no_path_checks_current_directory(tree: Path) -> None:
    result = run(["--no-cache"])
    assert result.exit_code == 1
    assert "flagged.py:4:12" in result.output


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["clean.py"], 0),
        (["flagged.py"], 1),
        (["flagged.py", "--exit-zero"], 0),
        (["flagged.py", "--select", "NOPE"], 2),
        (["flagged.py", "--output-format", "xml"], 2),
        (["flagged.py", "--bogus-flag"], 2),
        (["missing.py"], 1),
    ],
)
def test_exit_codes(tree: Path, args: list[str], code: int) -> None:
    assert run(["--no-cache", *args]).exit_code == code


def test_syntax_error_is_a_located_finding_and_the_run_goes_on(tree: Path) -> None:
    (tree / "broken.py").write_text(BROKEN)
    result = run(["--no-cache", "."])
    assert result.exit_code == 1
    assert "broken.py:1:7: E999 SyntaxError" in result.output
    assert "flagged.py:4:12: HTD102" in result.output


@pytest.mark.parametrize(
    ("select", "expected"),
    [
        (["--select", "HTD102"], 1),
        (["--select", "HTD"], 1),
        (["--select", "ALL"], 1),
        (["--select", "non-blocking-pageable-copy"], 1),
        (["--ignore", "HTD102"], 0),
        (["--ignore", "HTD"], 0),
        (["--select", "HTD", "--ignore", "HTD102"], 0),
        (["--ignore", "HTD", "--extend-select", "HTD102"], 1),
        (["--select", "ALL", "--ignore", "HTD1"], 0),
    ],
)
def test_select_ignore_extend_select(tree: Path, select: list[str], expected: int) -> None:
    result = run(["--no-cache", "--output-format", "json", "flagged.py", *select])
    assert len(json.loads(result.output)) == expected


@pytest.mark.parametrize("old", ["H2D002", "h2d002", "H2D", "H2D00"])
def test_old_codes_still_select_with_a_deprecation_warning(tree: Path, old: str) -> None:
    result = CliRunner().invoke(
        main, ["--no-cache", "--output-format", "json", "--ignore", old, "flagged.py"]
    )
    assert json.loads(result.stdout) == []
    assert "is the old name of" in result.stderr
    assert "HTD" in result.stderr


def test_unknown_selector_is_a_clear_error(tree: Path) -> None:
    result = CliRunner().invoke(main, ["--no-cache", "--select", "HTD7", "flagged.py"])
    assert result.exit_code == 2
    assert "--select: unknown rule selector 'HTD7'" in result.output


def test_json_is_ruff_compatible(tree: Path) -> None:
    data = json.loads(run(["--no-cache", "--output-format", "json", "flagged.py"]).output)
    (item,) = data
    assert item["code"] == "HTD102"
    assert item["location"] == {"row": 4, "column": 12}
    assert item["end_location"] == {"row": 4, "column": 56}
    assert item["filename"] == str(tree / "flagged.py")
    assert item["fix"] is None
    assert item["noqa_row"] == 4
    assert item["url"].endswith("docs/rules/HTD102.md")


def test_github_format(tree: Path) -> None:
    result = run(["--no-cache", "--output-format", "github", "flagged.py"])
    assert result.output.startswith(
        "::warning title=h2dlint (HTD102),file=flagged.py,line=4,col=12,endLine=4,endColumn=56::"
    )


def test_sarif_format(tree: Path) -> None:
    log = json.loads(run(["--no-cache", "--output-format", "sarif", "flagged.py"]).output)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "HTD102"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (4, 12)


def test_output_file(tree: Path) -> None:
    result = run(["--no-cache", "--output-format", "json", "--output-file", "out/r.json", "."])
    assert result.exit_code == 1
    assert result.output == ""
    assert json.loads((tree / "out/r.json").read_text())[0]["code"] == "HTD102"


def test_statistics(tree: Path) -> None:
    (tree / "more.py").write_text(FLAGGED + FLAGGED.replace("def f", "def g"))
    result = run(["--no-cache", "--statistics", "."])
    assert result.exit_code == 1
    first = result.output.splitlines()[0].split()
    assert first[:2] == ["3", "HTD102"]
    assert "flagged.py:" not in result.output


def test_quiet_prints_findings_without_summary(tree: Path) -> None:
    result = run(["--no-cache", "--quiet", "flagged.py"])
    assert "HTD102" in result.output
    assert "Found" not in result.output
    assert run(["--no-cache", "--quiet", "clean.py"]).output == ""


def test_stdin_with_filename(tree: Path) -> None:
    result = run(["--no-cache", "-", "--stdin-filename", "pkg/mod.py"], stdin=FLAGGED)
    assert result.exit_code == 1
    assert "pkg/mod.py:4:12: HTD102" in result.output
    plain = run(["--no-cache", "-"], stdin=FLAGGED)
    assert "-:4:12: HTD102" in plain.output


def test_diff_writes_nothing(tree: Path) -> None:
    before = (tree / "flagged.py").read_bytes()
    result = run(["--no-cache", "--diff", "flagged.py"])
    assert (tree / "flagged.py").read_bytes() == before
    assert result.exit_code == 0  # HTD102 has no fix: nothing would change


def test_fix_without_available_fix_keeps_file_and_reports(tree: Path) -> None:
    before = (tree / "flagged.py").read_bytes()
    result = run(["--no-cache", "--fix", "flagged.py"])
    assert result.exit_code == 1
    assert (tree / "flagged.py").read_bytes() == before
    assert "HTD102" in result.output


def test_path_named_like_a_subcommand(tree: Path) -> None:
    (tree / "rule").mkdir()
    (tree / "rule" / "m.py").write_text(FLAGGED)
    assert "rule/m.py:4:12" in run(["--no-cache", "./rule"]).output
    assert "rule/m.py:4:12" in run(["check", "--no-cache", "rule"]).output


def test_output_is_sorted_and_identical_across_job_counts(tree: Path) -> None:
    for i in range(12):
        (tree / f"m{i:02d}.py").write_text(FLAGGED + "\n" + FLAGGED.replace("def f", "def g"))
    serial = run(["--no-cache", "-j", "1", "--output-format", "json", "."]).output
    parallel = run(["--no-cache", "-j", "2", "--output-format", "json", "."]).output
    assert serial == parallel
    keys = [
        (d["filename"], d["location"]["row"], d["location"]["column"]) for d in json.loads(serial)
    ]
    assert keys == sorted(keys)


def test_rule_command(tree: Path) -> None:
    doc = run(["rule", "HTD102"])
    assert doc.exit_code == 0
    assert doc.output.startswith("# non-blocking-pageable-copy (HTD102)")
    by_name = run(["rule", "non-blocking-pageable-copy"])
    assert by_name.output == doc.output
    listing = run(["rule", "--all"]).output.splitlines()
    assert any(line.split()[:2] == ["HTD102", "non-blocking-pageable-copy"] for line in listing)
    info = json.loads(run(["rule", "HTD102", "--output-format", "json"]).output)
    assert info["code"] == "HTD102" and info["name"] == "non-blocking-pageable-copy"
    everything = json.loads(run(["rule", "--all", "--output-format", "json"]).output)
    codes = [r["code"] for r in everything]
    assert codes == sorted(all_rules()) and len(listing) == len(codes)
    unknown = CliRunner().invoke(main, ["rule", "HTD999"])
    assert unknown.exit_code == 2 and "unknown rule" in unknown.output


def test_version_does_not_import_libcst_or_torch() -> None:
    code = (
        "import sys\n"
        "from h2dlint.cli import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('libcst' in sys.modules, 'torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines() == [f"h2dlint {__version__}", "False False"]


def test_lint_path_never_imports_torch(tree: Path) -> None:
    code = (
        "import sys\n"
        "from h2dlint.cli import main\n"
        "try:\n"
        "    main(['--no-cache', '-j', '1', '.'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tree
    ).stdout
    assert out.splitlines()[-1] == "False"


def test_python_dash_m_entry_point(tree: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "h2dlint", "--no-cache", "flagged.py"],
        capture_output=True,
        text=True,
        cwd=tree,
    )
    assert proc.returncode == 1
    assert "flagged.py:4:12: HTD102" in proc.stdout


def test_check_ends_without_teardown_and_writes_everything(tree: Path) -> None:
    """After a check, ``cli.entry`` ends the process at once (no interpreter teardown): all
    it printed is there (more than a pipe holds), and the exit status is the check's; other
    commands end as usual."""
    body = "".join(
        f"def f{i}(ids, dev):\n    return torch.tensor(ids).to(dev, non_blocking=True)\n\n"
        for i in range(300)
    )
    (tree / "many.py").write_text("import torch\n\n" + body)
    command = [sys.executable, "-m", "h2dlint", "--no-cache", "--output-format", "json"]
    found = subprocess.run([*command, "many.py"], capture_output=True, text=True, cwd=tree)
    assert found.returncode == 1, found.stderr
    assert [f["code"] for f in json.loads(found.stdout)].count("HTD102") == 300
    zero = subprocess.run(
        [*command, "--exit-zero", "many.py"], capture_output=True, text=True, cwd=tree
    )
    assert zero.returncode == 0 and zero.stdout == found.stdout
    version = subprocess.run(
        [sys.executable, "-m", "h2dlint", "--version"], capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout == f"h2dlint {__version__}\n"


def test_stdin_is_not_read_unless_asked(tree: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "h2dlint", "--no-cache", "clean.py"],
        cwd=tree,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    try:
        assert proc.wait(timeout=30) == 0  # stdin left open: reading it would hang
    finally:
        proc.kill()
        assert proc.stdin is not None
        proc.stdin.close()

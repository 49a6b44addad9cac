"""The check command's Ruff-familiar flags, each as a Ruff user would type it.

Item by item: the group's --help, --color WHEN, --diff's hint about hidden unsafe fixes,
--statistics as JSON, the configuration's `unsafe-fixes` in the report, the short and long flags
Ruff has (-o -e -n -s -q -v, --fix-only, --exit-non-zero-on-fix, --show-fixes, --show-files,
--show-settings, --exclude, --output-format concise|full), the H2DLINT_* environment defaults, and
a run that finds nothing to check saying so and why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from h2dlint.cli import main

FLAGGED = (
    "import torch\n\ndef f(ids, dev):\n    return torch.tensor(ids).to(dev, non_blocking=True)\n"
)
CLEAN = "import torch\n\ndef f(x, dev):\n    return x.to(dev, non_blocking=True)\n"
# HTD104: a finding whose only fix is unsafe.
UNSAFE_ONLY = (
    "import torch\n\ndef f(pos_ids, device):\n"
    "    return torch.cat(pos_ids).to(device, non_blocking=True)\n"
)
# HTD902: a finding with a safe fix (the old code in the comment is rewritten).
SAFE_FIX = "x = 1  # noqa: H2D002\n"
HIDDEN_ONE = "1 hidden fix can be enabled with the `--unsafe-fixes` option"


def run(args: list[str], env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, args, env=env, catch_exceptions=False)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("NO_COLOR", "FORCE_COLOR", "H2DLINT_OUTPUT_FORMAT", "H2DLINT_OUTPUT_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("H2DLINT_NO_CACHE", raising=False)
    monkeypatch.delenv("H2DLINT_CACHE_DIR", raising=False)
    write(tmp_path / "flagged.py", FLAGGED)
    write(tmp_path / "clean.py", CLEAN)
    return tmp_path


# -- 1. the group's help ------------------------------------------------------------------------
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_group_help_lists_the_check_options_and_the_commands(flag: str) -> None:
    out = run([flag]).output
    assert out.startswith("Usage: main [OPTIONS] [PATH]...\n")
    for option in ("--fix", "--unsafe-fixes", "--diff", "--output-format", "--add-noqa", "-o,"):
        assert f"  {option}" in out, option
    assert "Commands:" in out and "  check " in out and "  rule " in out
    assert "--version" in out


# -- 2. --color WHEN ----------------------------------------------------------------------------
def test_color_never_is_an_option_value_not_a_path(tree: Path) -> None:
    result = run(["--no-cache", "--color", "never", "flagged.py"])
    assert result.exit_code == 1
    assert "never" not in result.output  # no "never: no such file"
    assert "\x1b[" not in result.output
    assert "flagged.py:4:12: HTD102" in result.output


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        (["--color", "always"], {}, True),
        (["--color", "auto"], {}, False),  # CliRunner's stdout is not a terminal
        ([], {"FORCE_COLOR": "1"}, True),
        (["--color", "never"], {"FORCE_COLOR": "1"}, False),
        (["--color", "always"], {"NO_COLOR": "1"}, True),
        ([], {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
    ],
)
def test_color_choice_and_environment(
    tree: Path, args: list[str], env: dict[str, str], coloured: bool
) -> None:
    out = run(["--no-cache", *args, "flagged.py"], env=env).output
    assert ("\x1b[" in out) is coloured


def test_color_rejects_other_values(tree: Path) -> None:
    result = run(["--no-cache", "--color", "sometimes", "flagged.py"])
    assert result.exit_code == 2
    assert "'sometimes' is not one of 'auto', 'always', 'never'" in result.output


# -- 3. --diff names the fixes --unsafe-fixes would add -----------------------------------------
def test_diff_with_only_unsafe_fixes_says_how_to_see_them(tree: Path) -> None:
    write(tree / "cat.py", UNSAFE_ONLY)
    result = run(["--no-cache", "--diff", "cat.py"])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == f"No fixes available ({HIDDEN_ONE}).\n"
    shown = run(["--no-cache", "--diff", "--unsafe-fixes", "cat.py"])
    assert shown.exit_code == 1
    assert "+    return torch.cat(pos_ids, out=pos_ids_pinned)" in shown.stdout
    assert shown.stderr == "Would fix 1 finding.\n"


def test_diff_with_safe_and_hidden_fixes_names_both(tree: Path) -> None:
    write(tree / "cat.py", UNSAFE_ONLY)
    write(tree / "old.py", SAFE_FIX)
    result = run(["--no-cache", "--diff", "cat.py", "old.py"])
    assert result.exit_code == 1
    assert "+x = 1  # noqa: HTD102" in result.stdout
    assert result.stderr == f"Would fix 1 finding ({HIDDEN_ONE}).\n"


# -- 4. --statistics --output-format json -------------------------------------------------------
def test_statistics_as_json(tree: Path) -> None:
    write(tree / "more.py", FLAGGED + FLAGGED.replace("def f", "def g"))
    write(tree / "old.py", SAFE_FIX)
    write(tree / "cat.py", UNSAFE_ONLY)
    result = run(["--no-cache", "--statistics", "--output-format", "json", "."])
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {"code": "HTD102", "name": "non-blocking-pageable-copy", "count": 3, "fixable": False},
        {"code": "HTD104", "name": "concat-then-copy", "count": 1, "fixable": False},
        {"code": "HTD902", "name": "old-suppression-code", "count": 1, "fixable": True},
    ]
    unsafe = run(["--no-cache", "--statistics", "--output-format", "json", "--unsafe-fixes", "."])
    assert {row["code"]: row["fixable"] for row in json.loads(unsafe.stdout)}["HTD104"] is True


def test_statistics_json_without_findings_is_an_empty_list(tree: Path) -> None:
    result = run(["--no-cache", "--statistics", "--output-format", "json", "clean.py"])
    assert (result.exit_code, json.loads(result.stdout)) == (0, [])


def test_statistics_in_other_formats_is_the_table(tree: Path) -> None:
    result = run(["--no-cache", "--statistics", "--output-format", "concise", "flagged.py"])
    assert result.stdout.splitlines()[0].split() == ["1", "HTD102", "non-blocking-pageable-copy"]


# -- 5. `unsafe-fixes = true` in the configuration reaches the report ---------------------------
def test_configured_unsafe_fixes_mark_findings_fixable(tree: Path) -> None:
    write(tree / "cat.py", UNSAFE_ONLY)
    write(tree / "pyproject.toml", "[tool.h2dlint]\nunsafe-fixes = true\n")
    result = run(["--no-cache", "cat.py"])
    assert "cat.py:4:12: HTD104 [*] " in result.stdout
    assert "Found 1 finding (1 fixable)." in result.stdout
    assert "hidden fix" not in result.output
    off = run(["--no-cache", "--no-unsafe-fixes", "cat.py"])
    assert "HTD104 [*]" not in off.stdout
    assert f"{HIDDEN_ONE}." in off.stdout
    diff = run(["--no-cache", "--diff", "cat.py"])
    assert diff.exit_code == 1 and "out=pos_ids_pinned" in diff.stdout


def test_unsafe_fixes_setting_is_per_file(tree: Path) -> None:
    write(tree / "pyproject.toml", "[tool.h2dlint]\nunsafe-fixes = false\n")
    write(tree / "a" / "cat.py", UNSAFE_ONLY)
    write(tree / "b" / "cat.py", UNSAFE_ONLY)
    write(tree / "b" / "pyproject.toml", "[tool.h2dlint]\nunsafe-fixes = true\n")
    result = run(["--no-cache", "--output-format", "concise", "a", "b"])
    lines = result.stdout.splitlines()
    assert any(line.startswith("a/cat.py:4:12: HTD104 `torch") for line in lines)
    assert any(line.startswith("b/cat.py:4:12: HTD104 [*] ") for line in lines)
    assert "Found 2 findings (1 fixable)." in lines
    assert f"{HIDDEN_ONE}." in lines


# -- 6. flags -----------------------------------------------------------------------------------
def test_short_output_file_and_its_environment_default(tree: Path) -> None:
    result = run(["--no-cache", "--output-format", "json", "-o", "out/r.json", "flagged.py"])
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads((tree / "out/r.json").read_text())[0]["code"] == "HTD102"
    run(["--no-cache", "flagged.py"], env={"H2DLINT_OUTPUT_FILE": "env.txt"})
    assert "Found 1 finding." in (tree / "env.txt").read_text()


def test_short_exit_zero(tree: Path) -> None:
    assert run(["--no-cache", "-e", "flagged.py"]).exit_code == 0


def test_short_no_cache_and_its_environment_default(tree: Path) -> None:
    run(["-n", "flagged.py"])
    run(["flagged.py"], env={"H2DLINT_NO_CACHE": "1"})
    assert not (tree / ".h2dlint_cache").exists()
    run(["flagged.py"])
    assert (tree / ".h2dlint_cache").is_dir()


def test_cache_dir_environment_default(tree: Path) -> None:
    run(["flagged.py"], env={"H2DLINT_CACHE_DIR": str(tree / "elsewhere")})
    assert (tree / "elsewhere").is_dir() and not (tree / ".h2dlint_cache").exists()


@pytest.mark.parametrize(("path", "code"), [("flagged.py", 1), ("clean.py", 0), ("empty", 0)])
def test_silent_prints_nothing_and_exits_as_usual(tree: Path, path: str, code: int) -> None:
    (tree / "empty").mkdir()
    for flag in ("-s", "--silent"):
        result = run(["--no-cache", flag, path])
        assert (result.exit_code, result.output) == (code, "")


def test_silent_still_reports_usage_errors(tree: Path) -> None:
    result = run(["--no-cache", "-s", "--select", "NOPE", "flagged.py"])
    assert result.exit_code == 2 and "unknown rule selector" in result.stderr


def test_quiet_prints_findings_without_summary_or_warnings(tree: Path) -> None:
    result = run(["--no-cache", "-q", "--ignore", "H2D001", "flagged.py"])
    assert result.stdout.startswith("flagged.py:4:12: HTD102")
    assert "Found" not in result.stdout
    assert result.stderr == ""  # the old code's deprecation warning too
    assert "is the old name of" in run(["--no-cache", "--ignore", "H2D001", "clean.py"]).stderr


def test_verbose_logs_settings_files_cache_and_skips(tree: Path) -> None:
    write(tree / "pyproject.toml", "[tool.h2dlint]\nextend-exclude = ['gen']\n")
    write(tree / "gen" / "g.py", FLAGGED)
    result = run(["-v", "--cache-dir", "cache", "."])
    err = result.stderr
    assert "h2dlint: verbose: cache: cache\n" in err
    assert "h2dlint: verbose: settings from pyproject.toml: 2 files\n" in err
    assert "h2dlint: verbose: flagged.py: pyproject.toml\n" in err
    assert (
        "h2dlint: verbose: skipped: gen is excluded by `gen` "
        "(`extend-exclude` in pyproject.toml [tool.h2dlint])\n"
    ) in err
    assert "h2dlint: verbose: checked 2 files in " in err
    assert "verbose" not in result.stdout


@pytest.mark.parametrize("flags", [["-q", "-v"], ["-s", "-q"], ["--silent", "--verbose"]])
def test_verbosity_flags_are_exclusive(tree: Path, flags: list[str]) -> None:
    result = run(["--no-cache", *flags, "flagged.py"])
    assert result.exit_code == 2 and "cannot be combined" in result.stderr


def test_fix_only_fixes_and_reports_nothing_else(tree: Path) -> None:
    write(tree / "old.py", SAFE_FIX)
    result = run(["--no-cache", "--fix-only", "old.py", "flagged.py"])
    assert result.exit_code == 0
    assert result.stdout == "Fixed 1 finding.\n"
    assert (tree / "old.py").read_text() == "x = 1  # noqa: HTD102\n"
    again = run(["--no-cache", "--fix-only", "old.py", "flagged.py"])
    assert (again.exit_code, again.output) == (0, "")


def test_fix_only_exit_codes(tree: Path) -> None:
    write(tree / "old.py", SAFE_FIX)
    assert run(["--no-cache", "--fix-only", "--exit-non-zero-on-fix", "old.py"]).exit_code == 1
    write(tree / "broken.py", "def f(:\n")
    result = run(["--no-cache", "--fix-only", "broken.py", "flagged.py"])
    assert result.exit_code == 1  # a file that cannot be parsed is an error, not a finding
    assert "broken.py:1:7: E999 " in result.stderr
    assert run(["--no-cache", "--fix-only", "-e", "broken.py"]).exit_code == 0


def test_fix_only_with_hidden_fixes_says_so(tree: Path) -> None:
    write(tree / "cat.py", UNSAFE_ONLY)
    result = run(["--no-cache", "--fix-only", "cat.py"])
    assert (result.exit_code, result.stdout) == (0, f"No fixes applied ({HIDDEN_ONE}).\n")


def test_exit_non_zero_on_fix(tree: Path) -> None:
    write(tree / "old.py", SAFE_FIX)
    assert run(["--no-cache", "--fix", "--exit-non-zero-on-fix", "old.py"]).exit_code == 1
    write(tree / "old.py", SAFE_FIX)
    assert run(["--no-cache", "--fix", "old.py"]).exit_code == 0
    write(tree / "old.py", SAFE_FIX)
    assert run(["--no-cache", "--fix", "--exit-non-zero-on-fix", "-e", "old.py"]).exit_code == 0
    # Nothing to fix: nothing changes the exit code.
    assert run(["--no-cache", "--fix", "--exit-non-zero-on-fix", "clean.py"]).exit_code == 0


def test_show_fixes_lists_what_was_fixed_before_the_summary(tree: Path) -> None:
    write(tree / "old.py", SAFE_FIX + "y = 2  # noqa: H2D001\n")
    result = run(["--no-cache", "--fix", "--show-fixes", "old.py", "flagged.py"])
    assert result.exit_code == 1
    out = result.stdout
    table = "Fixed 2 findings:\n- old.py:\n    2 \u00d7 HTD902 (old-suppression-code)\n"
    assert table in out
    assert out.index("flagged.py:4:12: HTD102") < out.index(table)
    assert out.index(table) < out.index("Found 1 finding.")
    without = run(["--no-cache", "--fix", "flagged.py"]).stdout
    assert "Fixed" not in without


def test_show_fixes_with_diff_goes_to_stderr(tree: Path) -> None:
    write(tree / "old.py", SAFE_FIX)
    result = run(["--no-cache", "--diff", "--show-fixes", "old.py"])
    assert "Would fix 1 finding:\n- old.py:\n    1 \u00d7 HTD902" in result.stderr
    assert (tree / "old.py").read_text() == SAFE_FIX


def test_show_files_lists_each_file_with_its_configuration(tree: Path) -> None:
    write(tree / "h2dlint.toml", "extend-exclude = ['gen']\n")
    write(tree / "gen" / "g.py", FLAGGED)
    write(tree / "sub" / "pyproject.toml", "[tool.h2dlint]\nignore = ['HTD102']\n")
    write(tree / "sub" / "s.py", FLAGGED)
    result = run(["--show-files", "."])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "clean.py    h2dlint.toml",
        "flagged.py  h2dlint.toml",
        "sub/s.py    sub/pyproject.toml",
    ]
    assert not (tree / ".h2dlint_cache").exists()  # nothing was checked
    records = json.loads(run(["--show-files", "--output-format", "json", "sub"]).stdout)
    assert records == [{"path": "sub/s.py", "config": "sub/pyproject.toml"}]


def test_show_settings_for_a_file(tree: Path) -> None:
    write(
        tree / "pyproject.toml",
        "[tool.h2dlint]\nunsafe-fixes = true\nextend-exclude = ['gen']\n"
        "[tool.h2dlint.per-file-ignores]\n'tests/*' = ['HTD102']\n",
    )
    write(tree / "tests" / "t.py", FLAGGED)
    result = run(["--show-settings", "tests/t.py"])
    assert result.exit_code == 0
    out = result.stdout.splitlines()
    assert out[:3] == [
        "Resolved settings for: tests/t.py",
        "Configuration file: pyproject.toml",
        f"Project root: {tree.resolve()}",
    ]
    assert "  HTD102  non-blocking-pageable-copy  (off here: per-file-ignores)" in out
    assert "  HTD101  per-item-transfer" in out
    assert "unsafe-fixes = true" in out
    assert '  "tests/*" = ["HTD102"]' in out
    assert "  `extend-exclude` in pyproject.toml [tool.h2dlint]: gen" in out
    data = json.loads(run(["--show-settings", "--output-format", "json", "tests/t.py"]).stdout)
    assert data["file"] == "tests/t.py" and data["unsafe-fixes"] is True
    htd102 = next(rule for rule in data["rules"] if rule["code"] == "HTD102")
    assert htd102["on_for_this_file"] is False


def test_show_settings_of_the_first_file_of_a_directory(tree: Path) -> None:
    result = run(["--show-settings"])
    assert result.stdout.startswith("Resolved settings for: clean.py\n")
    assert "Configuration file: (none: the defaults)" in result.stdout


def test_exclude_replaces_the_defaults_and_the_configuration(tree: Path) -> None:
    write(tree / "build" / "b.py", FLAGGED)
    write(tree / "pyproject.toml", "[tool.h2dlint]\nexclude = ['flagged.py']\n")
    files = run(["--show-files", "--output-format", "json"]).stdout
    assert [r["path"] for r in json.loads(files)] == ["build/b.py", "clean.py"]
    files = run(["--show-files", "--output-format", "json", "--exclude", "clean.py"]).stdout
    assert [r["path"] for r in json.loads(files)] == ["build/b.py", "flagged.py"]
    default = run(["--show-files", "--output-format", "json", "--exclude", "build,clean.py"])
    assert [r["path"] for r in json.loads(default.stdout)] == ["flagged.py"]


def test_command_line_patterns_with_a_slash_are_relative_to_the_current_directory(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tree / "pyproject.toml", "[tool.h2dlint]\n")
    write(tree / "pkg" / "gen" / "g.py", FLAGGED)
    write(tree / "pkg" / "gen" / "h.py", FLAGGED)
    monkeypatch.chdir(tree / "pkg")
    for option in ("--exclude", "--extend-exclude"):
        result = run(["--show-files", "--output-format", "json", option, "gen/g.py"])
        assert [r["path"] for r in json.loads(result.stdout)] == ["gen/h.py"], option


def test_concise_is_one_line_per_finding(tree: Path) -> None:
    write(tree / "old.py", SAFE_FIX)
    result = run(["--no-cache", "--output-format", "concise", "flagged.py", "old.py"])
    assert result.stdout.splitlines() == [
        "flagged.py:4:12: HTD102 `non_blocking=True` copy from pageable memory: "
        "`torch.tensor(ids)` is not pinned, so the copy is staged by the driver and, from a few "
        "MiB up, blocks the host",
        "old.py:1:8: HTD902 [*] suppression comment uses an old h2dlint code: H2D002 is now HTD102",
        "Found 2 findings (1 fixable).",
    ]


def test_full_is_the_default_and_text_its_old_name(tree: Path) -> None:
    default = run(["--no-cache", "flagged.py"]).stdout
    assert default == run(["--no-cache", "--output-format", "full", "flagged.py"]).stdout
    assert default == run(["--no-cache", "--output-format", "text", "flagged.py"]).stdout
    assert "  |            ^^^^" in default


def test_output_format_environment_default(tree: Path) -> None:
    env = {"H2DLINT_OUTPUT_FORMAT": "json"}
    assert json.loads(run(["--no-cache", "flagged.py"], env=env).stdout)[0]["code"] == "HTD102"
    concise = run(["--no-cache", "--output-format", "concise", "flagged.py"], env=env).stdout
    assert concise.startswith("flagged.py:4:12: HTD102 ")  # the command line wins
    bad = run(["--no-cache", "flagged.py"], env={"H2DLINT_OUTPUT_FORMAT": "xml"})
    assert bad.exit_code == 2 and "H2DLINT_OUTPUT_FORMAT" in bad.output


# -- 7. nothing checked is never "All checks passed!" -------------------------------------------
@pytest.fixture
def repo(tree: Path) -> Path:
    (tree / ".git").mkdir()
    return tree


def test_a_gitignored_tree_named_explicitly_warns_and_says_why(repo: Path) -> None:
    write(repo / "myenv" / ".gitignore", "*\n")
    write(repo / "myenv" / "lib" / "site.py", FLAGGED)
    write(repo / "myenv" / "tool.py", FLAGGED)
    result = run(["--no-cache", "myenv"])
    assert result.exit_code == 0
    assert "All checks passed!" not in result.output
    assert result.stdout == "No files were checked.\n"
    assert result.stderr.splitlines() == [
        "h2dlint: warning: No Python files found under the given path(s)",
        "h2dlint: warning: myenv/lib is ignored by `*` in myenv/.gitignore:1 (as is 1 more)",
        "h2dlint: warning: --no-respect-gitignore also checks what .gitignore files leave out",
    ]
    assert run(["--no-cache", "--no-respect-gitignore", "myenv"]).exit_code == 1


def test_a_vendored_folder_ignored_from_the_root_names_the_pattern(repo: Path) -> None:
    write(repo / ".gitignore", "# third-party code\nvendor/*\n")
    write(repo / "vendor" / "v.py", FLAGGED)
    result = run(["--no-cache", "vendor"])
    assert result.exit_code == 0
    assert "warning: vendor/v.py is ignored by `vendor/*` in .gitignore:2\n" in result.stderr
    # A file named explicitly is always checked, .gitignore or not (Ruff's rule).
    named = run(["--no-cache", "vendor/v.py"])
    assert named.exit_code == 1 and "vendor/v.py:4:12: HTD102" in named.stdout


def test_excluded_contents_name_the_setting(tree: Path) -> None:
    write(tree / "proj" / "build" / "b.py", FLAGGED)
    result = run(["--no-cache", "proj"])
    assert result.exit_code == 0
    assert "warning: proj/build is excluded by `build` (the default `exclude`)\n" in result.stderr
    assert "--exclude replaces the `exclude` patterns" in result.stderr


def test_force_excluded_file_names_the_pattern(tree: Path) -> None:
    write(tree / "pyproject.toml", "[tool.h2dlint]\nextend-exclude = ['flagged.py']\n")
    result = run(["--no-cache", "--force-exclude", "flagged.py"])
    assert result.exit_code == 0
    assert (
        "flagged.py is excluded by `flagged.py` (`extend-exclude` in pyproject.toml "
        "[tool.h2dlint]; --force-exclude applies it to named paths)"
    ) in result.stderr


def test_a_folder_without_python_files(tree: Path) -> None:
    write(tree / "docs" / "index.md", "# docs\n")
    result = run(["--no-cache", "docs"])
    assert result.exit_code == 0
    assert "h2dlint: warning: docs holds no *.py or *.pyi file\n" in result.stderr
    assert result.stdout == "No files were checked.\n"


def test_the_warning_only_when_nothing_at_all_was_checked(tree: Path) -> None:
    write(tree / "docs" / "index.md", "# docs\n")
    result = run(["--no-cache", "docs", "clean.py"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "All checks passed!\n"


def test_show_files_warns_when_there_is_nothing_to_show(tree: Path) -> None:
    write(tree / "docs" / "index.md", "# docs\n")
    result = run(["--show-files", "docs"])
    assert (result.exit_code, result.stdout) == (0, "")
    assert "No Python files found under the given path(s)" in result.stderr

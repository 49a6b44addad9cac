"""Configuration files, file discovery and exclusion, as a user's project would set them up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from h2dlint.cli import main

FLAGGED = "import torch\nx = torch.tensor([1]).to('cuda', non_blocking=True)\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["--no-cache", *args])


def flagged_files(result: Result) -> list[str]:
    assert result.exit_code in (0, 1), result.output
    return sorted({Path(d["filename"]).name for d in json.loads(result.stdout)})


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pkg" / "a.py", FLAGGED)
    write(tmp_path / "pkg" / "sub" / "b.py", FLAGGED)
    return tmp_path


def test_nearest_pyproject_applies_per_directory(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.h2dlint]\nselect = ['HTD102']\n")
    write(project / "pkg" / "sub" / "pyproject.toml", "[tool.h2dlint]\nignore = ['HTD102']\n")
    result = run("--output-format", "json", ".")
    assert flagged_files(result) == ["a.py"]


def test_directories_without_a_config_inherit_the_nearest_one(project: Path) -> None:
    """The walk hands each directory its parent's settings when none of its entries is named
    like a configuration file: deeper directories and siblings must still get the right one."""
    write(project / "h2dlint.toml", "select = ['HTD102']\n")
    write(project / "pkg" / "sub" / "h2dlint.toml", "ignore = ['HTD102']\n")
    write(project / "pkg" / "sub" / "deeper" / "deepest" / "c.py", FLAGGED)
    write(project / "pkg" / "sibling" / "deeper" / "d.py", FLAGGED)
    write(project / "pkg" / "sub" / "deeper" / "pyproject.toml", "[project]\nname = 'x'\n")
    result = run("--output-format", "json", ".")
    assert flagged_files(result) == ["a.py", "d.py"]


def test_pyproject_without_table_is_passed_over(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.h2dlint]\nignore = ['HTD']\n")
    write(project / "pkg" / "pyproject.toml", "[project]\nname = 'x'\n")
    assert flagged_files(run("--output-format", "json", ".")) == []


def test_h2dlint_toml_wins_over_pyproject_in_same_directory(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.h2dlint]\nignore = ['HTD']\n")
    write(project / "h2dlint.toml", "select = ['HTD102']\n")
    assert flagged_files(run("--output-format", "json", ".")) == ["a.py", "b.py"]


def test_explicit_config_file(project: Path) -> None:
    write(project / "pkg" / "sub" / "pyproject.toml", "[tool.h2dlint]\nselect = ['HTD102']\n")
    write(project / "strict.toml", "ignore = ['HTD102']\n")
    assert flagged_files(run("--output-format", "json", "--config", "strict.toml", ".")) == []


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[tool.h2dlint]\nselct = ['HTD']\n", "[tool.h2dlint] selct: unknown key"),
        ("[tool.h2dlint]\nselect = 'HTD7'\n", "unknown rule selector 'HTD7'"),
        ("[tool.h2dlint]\nselect = [1]\n", "select: expected a list of strings"),
        ("[tool.h2dlint]\nunsafe-fixes = 'yes'\n", "unsafe-fixes: expected true or false"),
        ("[tool.h2dlint]\nexclude = ['[bad']\n", "exclude"),
        ("[tool.h2dlint]\nper-file-ignores = ['x']\n", "per-file-ignores: expected a table"),
        ("[tool.h2dlint.per-file-ignores]\n'x.py' = ['NOPE']\n", "unknown rule selector"),
        ("[tool.h2dlint.rules.HTD777]\nx = 1\n", "rules.HTD777: unknown rule"),
        ("[tool.h2dlint.rules.HTD102]\nx = 1\n", "rules.HTD102.x: unknown option"),
        ("[tool.h2dlint\nselect = []\n", "invalid TOML"),
    ],
)
def test_bad_config_is_a_clear_error(project: Path, toml: str, message: str) -> None:
    write(project / "pyproject.toml", toml)
    result = run(".")
    assert result.exit_code == 2
    assert str(project / "pyproject.toml") in result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_per_file_ignores(project: Path) -> None:
    write(
        project / "pyproject.toml",
        "[tool.h2dlint.per-file-ignores]\n'pkg/sub/*.py' = ['HTD102']\n",
    )
    assert flagged_files(run("--output-format", "json", ".")) == ["a.py"]


def test_exclude_and_extend_exclude(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.h2dlint]\nextend-exclude = ['sub']\n")
    assert flagged_files(run("--output-format", "json", ".")) == ["a.py"]
    assert flagged_files(run("--output-format", "json", "--extend-exclude", "a.py", ".")) == []


def test_default_excludes(project: Path) -> None:
    for folder in (".venv", "build", ".git", "__pycache__", "node_modules", ".tox"):
        write(project / folder / "c.py", FLAGGED)
    assert flagged_files(run("--output-format", "json", ".")) == ["a.py", "b.py"]


def test_replacing_exclude_drops_defaults(project: Path) -> None:
    write(project / "build" / "c.py", FLAGGED)
    write(project / "pyproject.toml", "[tool.h2dlint]\nexclude = ['sub']\n")
    assert flagged_files(run("--output-format", "json", ".")) == ["a.py", "c.py"]


def test_gitignore_is_respected(project: Path) -> None:
    (project / ".git").mkdir()
    write(project / ".gitignore", "pkg/sub/\n")
    write(project / "pkg" / ".gitignore", "a.py\n!keep.py\n")
    write(project / "pkg" / "keep.py", FLAGGED)
    assert flagged_files(run("--output-format", "json", ".")) == ["keep.py"]
    assert flagged_files(run("--output-format", "json", "--no-respect-gitignore", ".")) == [
        "a.py",
        "b.py",
        "keep.py",
    ]


def test_gitignore_above_the_walked_directory_applies(project: Path) -> None:
    (project / ".git").mkdir()
    write(project / ".gitignore", "sub/\n")
    assert flagged_files(run("--output-format", "json", "pkg")) == ["a.py"]


def test_gitignore_applies_when_the_repository_is_walked_through_a_symlink(
    project: Path,
) -> None:
    (project / ".git").mkdir()
    write(project / ".gitignore", "pkg/sub/\n")
    write(project / "pkg" / ".gitignore", "a.py\n!keep.py\n")
    write(project / "pkg" / "keep.py", FLAGGED)
    link = project.parent / f"{project.name}-link"
    link.symlink_to(project, target_is_directory=True)
    try:
        assert flagged_files(run("--output-format", "json", str(link))) == ["keep.py"]
        assert flagged_files(run("--output-format", "json", str(link / "pkg"))) == ["keep.py"]
    finally:
        link.unlink()


def test_explicit_file_is_always_checked_unless_force_exclude(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.h2dlint]\nextend-exclude = ['a.py']\n")
    assert flagged_files(run("--output-format", "json", "pkg/a.py")) == ["a.py"]
    assert flagged_files(run("--output-format", "json", "--force-exclude", "pkg/a.py")) == []


def test_explicit_file_with_any_suffix_is_checked(project: Path) -> None:
    write(project / "script", FLAGGED)
    assert flagged_files(run("--output-format", "json", "script")) == ["script"]
    write(project / "stub.pyi", FLAGGED)
    assert "stub.pyi" in flagged_files(run("--output-format", "json", "."))


def test_unsafe_fixes_setting_is_read(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.h2dlint]\nunsafe-fixes = true\n")
    assert run(".").exit_code == 1


def test_walk_below_an_excluded_folder_named_explicitly(project: Path) -> None:
    write(project / ".venv" / "lib" / "pkg" / "m.py", FLAGGED)
    assert flagged_files(run("--output-format", "json", ".venv/lib/pkg")) == ["m.py"]
    assert flagged_files(run("--output-format", "json", ".")) == ["a.py", "b.py"]
    assert flagged_files(run("--output-format", "json", "--force-exclude", ".venv/lib/pkg")) == []


# -- the line length of the code fixes write -----------------------------------------------------
def _line_length(directory: Path) -> tuple[int, str]:
    from h2dlint.config import Overrides, SettingsResolver

    settings = SettingsResolver(Overrides(), None, directory).for_directory(directory)
    return settings.line_length, settings.line_length_origin


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, 88),
        ({"pyproject.toml": "[tool.black]\nline-length = 99\n"}, 99),
        (
            {"pyproject.toml": "[tool.ruff]\nline-length = 100\n[tool.black]\nline-length = 99\n"},
            100,
        ),
        ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['E']\n"}, 88),
        (
            {
                "ruff.toml": "line-length = 110\n",
                "pyproject.toml": "[tool.ruff]\nline-length = 1\n",
            },
            110,
        ),
        (
            {
                "pyproject.toml": "[tool.h2dlint]\nline-length = 79\n"
                "[tool.ruff]\nline-length = 100\n"
            },
            79,
        ),
        # the nearest formatter configuration, though h2dlint's is further up
        (
            {
                "h2dlint.toml": "select = ['HTD']\n",
                "pkg/pyproject.toml": "[tool.ruff]\nline-length = 120\n",
            },
            120,
        ),
        # a formatter's file that is not valid TOML is not ours to complain about
        ({"pyproject.toml": "[tool.ruff\nline-length = 1\n"}, 88),
    ],
)
def test_line_length_comes_from_h2dlint_then_ruff_then_black(
    project: Path, files: dict[str, str], expected: int
) -> None:
    for name, text in files.items():
        write(project / name, text)
    length, origin = _line_length(project / "pkg")
    assert length == expected
    assert (origin == "default") == (expected == 88 and "line-length = 88" not in str(files))


def test_line_length_is_validated(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.h2dlint]\nline-length = 0\n")
    result = run(".")
    assert result.exit_code == 2
    assert "line-length: expected an integer from 1 to 320, got 0" in result.output


CAT = (
    "import torch\n\n\n"
    "def f(pos_ids, device):\n"
    "    return torch.cat(pos_ids).to(device, non_blocking=True)\n"
)


@pytest.mark.parametrize(
    ("config", "helper"),
    [
        ("", "    pos_ids_pinned = torch.empty(\n        (sum("),
        (
            "[tool.ruff]\nline-length = 120\n",
            "    pos_ids_pinned = torch.empty(\n        (sum(t.shape[0] for t in pos_ids), "
            "*pos_ids[0].shape[1:]), dtype=pos_ids[0].dtype, pin_memory=True\n    )\n",
        ),
    ],
)
def test_fixes_are_laid_out_for_the_configured_line_length(
    project: Path, config: str, helper: str
) -> None:
    write(project / "pyproject.toml", config)
    path = write(project / "pkg" / "cat.py", CAT)
    result = run("--fix", "--unsafe-fixes", "--select", "HTD104", str(path))
    assert result.exit_code == 0, result.output
    fixed = path.read_text()
    assert helper in fixed
    assert (
        "    return torch.cat(pos_ids, out=pos_ids_pinned).to(device, non_blocking=True)\n" in fixed
    )


def test_show_settings_says_where_the_line_length_is_set(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    result = run("--show-settings", "pkg/a.py")
    assert "line-length = 100  (" in result.stdout
    assert "pyproject.toml: [tool.ruff] line-length)" in result.stdout

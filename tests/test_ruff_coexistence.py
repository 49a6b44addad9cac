"""h2dlint beside Ruff: Ruff reads every ``# noqa`` comment, h2dlint's codes included.

With ``lint.external = ["HTD"]`` (what docs and README recommend), each form of h2dlint
suppression comment passes Ruff without a warning and without RUF100 (unused ``noqa``) or RUF102
(invalid code). The old ``H2Dnnn`` codes did not: Ruff reads a code as letters then digits, so
``H2D002`` was ``H2`` + ``D002``, a warning on every run, and RUF102. That is why the codes were
renamed. Two limits of Ruff's parser remain, documented in the README: it does not read a code in
lower case, and RUF100 reports a bare ``# noqa`` on a line where Ruff itself finds nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from samples import SKIPPED, SUPPRESSED

from h2dlint.cli import main

pytest.importorskip("ruff", reason="ruff is part of the test extra")

ROOT = Path(__file__).resolve().parent.parent

RUFF_CONFIG = """\
[tool.ruff.lint]
external = ["HTD"]

[tool.ruff.lint.pydocstyle]
convention = "pep257"
"""

SELECT = "F841,RUF100,RUF102,D"


def _project(tmp_path: Path, batch: str, config: str = RUFF_CONFIG) -> Path:
    (tmp_path / "pyproject.toml").write_text(config, encoding="utf-8")
    (tmp_path / "batch.py").write_text(batch, encoding="utf-8")
    (tmp_path / "skipped.py").write_text(SKIPPED, encoding="utf-8")
    return tmp_path


def _ruff(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_the_sample_has_a_finding_on_every_suppressed_line(tmp_path: Path) -> None:
    """Else the comments below would suppress nothing, and the test would prove nothing."""
    bare = "\n".join(
        line.split("  #")[0] if "non_blocking" in line else line for line in SUPPRESSED.splitlines()
    )
    project = _project(tmp_path, bare + "\n")
    runner = CliRunner()
    result = runner.invoke(main, ["--no-cache", "--select", "HTD102", "-q", str(project)])
    assert result.exit_code == 1, result.output
    rows = sorted(
        int(line.split(":")[1]) for line in result.output.splitlines() if "HTD102" in line
    )
    assert rows == list(range(8, 17))
    # As written, every one is suppressed, and skipped.py is skipped.
    project = _project(tmp_path, SUPPRESSED)
    result = runner.invoke(main, ["--no-cache", str(project)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("flag", ["--select", "--extend-select"])
def test_ruff_reads_every_suppression_comment_without_a_warning(tmp_path: Path, flag: str) -> None:
    project = _project(tmp_path, SUPPRESSED)
    result = _ruff(project, flag, SELECT, ".")
    assert "Missing or joined rule code" not in result.stderr
    assert "Invalid `# noqa` directive" not in result.stderr
    assert result.stderr == ""
    assert "RUF100" not in result.stdout and "RUF102" not in result.stdout
    assert result.returncode == 0, result.stdout


def test_without_external_ruff_calls_the_codes_invalid(tmp_path: Path) -> None:
    """Why the docs say ``lint.external = ["HTD"]``: without it, RUF102 on every HTD code."""
    config = '[tool.ruff.lint.pydocstyle]\nconvention = "pep257"\n'
    project = _project(tmp_path, SUPPRESSED, config)
    result = _ruff(project, "--select", SELECT, ".")
    assert "RUF102" in result.stdout and "HTD102" in result.stdout
    assert "Missing or joined rule code" not in result.stderr


def test_the_old_codes_made_ruff_warn(tmp_path: Path) -> None:
    """Why the rename happened: Ruff splits ``H2D002`` into ``H2`` and ``D002``."""
    old = SUPPRESSED.replace("HTD102", "H2D002").replace("HTD101", "H2D001")
    project = _project(tmp_path, old)
    result = _ruff(project, "--select", SELECT, ".")
    assert "Missing or joined rule code" in result.stderr
    assert "RUF102" in result.stdout and "H2, D002" in result.stdout
    assert result.returncode == 1
    # h2dlint still honours them, for now (HTD902 asks to rewrite them).
    runner = CliRunner()
    result = runner.invoke(main, ["--no-cache", "--select", "HTD102", str(project)])
    assert result.exit_code == 0, result.output


def test_ruff_does_not_read_a_code_in_lower_case(tmp_path: Path) -> None:
    """h2dlint reads ``# noqa: htd102``; Ruff calls it invalid. The docs say: upper case."""
    lower = SUPPRESSED.replace("# NOQA: HTD102", "# NOQA: htd102")
    project = _project(tmp_path, lower)
    result = _ruff(project, "--select", SELECT, ".")
    assert "Invalid `# noqa` directive on batch.py:11" in result.stderr


def test_ruff_reports_a_bare_noqa_on_a_line_it_has_nothing_for(tmp_path: Path) -> None:
    """A bare ``# noqa`` silences every h2dlint rule, but RUF100 calls it unused; the docs
    recommend ``# h2dlint: ignore`` instead."""
    bare = SUPPRESSED.replace("# h2dlint: ignore\n", "# noqa\n")
    project = _project(tmp_path, bare)
    result = _ruff(project, "--select", SELECT, ".")
    assert "batch.py:15:" in result.stdout and "RUF100" in result.stdout
    assert result.stderr == ""


def test_the_repository_itself_gives_ruff_no_warning() -> None:
    """No prose in a comment may look like a malformed ``noqa`` directive to Ruff (HTD901's
    module once said one in a comment, and every Ruff run warned)."""
    paths = [
        p for p in ("h2dlint", "rules", "tests", "scripts", "benchmarks") if (ROOT / p).is_dir()
    ]
    result = _ruff(ROOT, *paths)
    assert result.stderr == "", result.stderr
    assert result.returncode == 0, result.stdout

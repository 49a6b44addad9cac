"""The type gate: ``mypy`` (strict, as pyproject.toml's [tool.mypy] configures it) reports no
error in h2dlint/ and rules/. `.ci/run` runs the same gate; this test says it sooner."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+(?::\d+)?: error: ")


@pytest.mark.slow
def test_mypy_strict_reports_no_errors(request: pytest.FixtureRequest):
    pytest.importorskip("mypy", reason="mypy is not installed (it is in the `test` extra)")
    cache = getattr(request.config, "cache", None)
    cache_dir = (
        cache.mkdir("mypy") if cache is not None else request.getfixturevalue("tmp_path") / "mypy"
    )
    # No paths on the command line: [tool.mypy] names them, so this checks what the gate checks.
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache_dir), "--no-color-output"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    output = result.stdout + result.stderr
    # 0: clean, 1: errors were found; anything else is mypy failing to run at all.
    assert result.returncode in (0, 1), output
    errors = [line for line in output.splitlines() if _ERROR.match(line)]
    assert not errors, "\n".join(errors)

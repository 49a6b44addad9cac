"""The per-file time limit: a file whose check runs past ``--time-limit`` seconds of CPU is
reported as not checked, with a located finding, the run goes on, and ``--fix`` writes
nothing to it."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import h2dlint.pipeline
from h2dlint.cli import main
from h2dlint.diagnostics import INTERNAL_ERROR_CODE
from h2dlint.time_limit import TimeLimitExceeded, cpu_time_limit, disarm

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "setitimer"), reason="needs POSIX interval timers (not on Windows)"
)

FLAGGED = "import torch\ny = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n"
SLOW = "import torch\nz = torch.tensor([3, 4]).to('cuda', non_blocking=True)\n"


def _spin(seconds: float) -> None:
    """Use ``seconds`` of CPU time (not sleep: the limit counts CPU)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_the_limit_interrupts_code_that_runs_past_it() -> None:
    with pytest.raises(TimeLimitExceeded) as raised, cpu_time_limit(0.05):
        _spin(5)
    assert raised.value.seconds == 0.05
    assert "0.05 s of CPU time" in str(raised.value)


def test_code_within_the_limit_runs_and_the_timer_is_off_after() -> None:
    with cpu_time_limit(5):
        _spin(0.01)
    assert signal.getitimer(signal.ITIMER_PROF)[0] == 0
    _spin(0.05)  # nothing fires later


def test_no_limit_at_zero_and_an_inner_limit_does_not_shorten_the_outer() -> None:
    with cpu_time_limit(0):
        assert signal.getitimer(signal.ITIMER_PROF)[0] == 0
    with cpu_time_limit(5), cpu_time_limit(0.01):
        _spin(0.1)  # the inner limit is not set: the outer one holds


def test_disarm_ends_the_limit_early() -> None:
    with cpu_time_limit(0.05):
        disarm()
        _spin(0.2)


def test_an_except_exception_in_the_analysis_does_not_swallow_it() -> None:
    with pytest.raises(TimeLimitExceeded), cpu_time_limit(0.05):
        try:
            _spin(5)
        except Exception:  # what an analysis's guard looks like
            pytest.fail("the limit must not be an Exception")


def _slow_for(name: str, real: Any) -> Any:
    """``real`` (check_text or fix_text), spinning first when it is given the file ``name``."""

    def slow(text: str, path: str, *args: Any, **kwargs: Any) -> Any:
        if Path(path).name == name:
            _spin(30)
        return real(text, path, *args, **kwargs)

    return slow


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(main, ["--no-cache", "--no-color", *args], catch_exceptions=False)


def test_a_file_past_the_limit_is_reported_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "good.py").write_text(FLAGGED)
    (tmp_path / "slow.py").write_text(SLOW)
    monkeypatch.setattr(
        h2dlint.pipeline, "check_text", _slow_for("slow.py", h2dlint.pipeline.check_text)
    )
    result = _invoke("-j", "1", "--time-limit", "0.2", "--output-format", "json", str(tmp_path))
    findings = json.loads(result.output)
    by_file = {(Path(f["filename"]).name, f["code"]) for f in findings}
    assert ("good.py", "HTD102") in by_file
    slow = [f for f in findings if Path(f["filename"]).name == "slow.py"]
    assert [f["code"] for f in slow] == [INTERNAL_ERROR_CODE]
    assert slow[0]["location"]["row"] == 1
    assert "file not checked" in slow[0]["message"]
    assert "0.2 s of CPU time" in slow[0]["message"]
    assert "--time-limit" in slow[0]["message"]
    assert result.exit_code == 2  # a file not checked is an error, as an internal one is


def test_fix_writes_nothing_to_a_file_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW)
    monkeypatch.setattr(
        h2dlint.pipeline, "fix_text", _slow_for("slow.py", h2dlint.pipeline.fix_text)
    )
    result = _invoke("--fix", "--unsafe-fixes", "--time-limit", "0.2", str(slow))
    assert slow.read_text() == SLOW
    assert "file not checked" in result.output
    assert result.exit_code == 2


def test_the_limit_is_set_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow.py").write_text(SLOW)
    monkeypatch.setattr(
        h2dlint.pipeline, "check_text", _slow_for("slow.py", h2dlint.pipeline.check_text)
    )
    monkeypatch.setenv("H2DLINT_TIME_LIMIT", "0.2")
    result = _invoke(str(tmp_path / "slow.py"))
    assert "file not checked" in result.output


def test_a_negative_limit_is_a_usage_error() -> None:
    result = _invoke("--time-limit", "-1", ".")
    assert result.exit_code == 2
    assert "--time-limit" in result.output


@pytest.mark.skipif(sys.platform != "linux", reason="forked workers inherit the patch")
def test_the_limit_holds_in_worker_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(6):
        (tmp_path / f"m{i}.py").write_text(FLAGGED)
    (tmp_path / "slow.py").write_text(SLOW)
    monkeypatch.setattr(
        h2dlint.pipeline, "check_text", _slow_for("slow.py", h2dlint.pipeline.check_text)
    )
    result = _invoke("-j", "2", "--time-limit", "0.2", "--output-format", "json", str(tmp_path))
    codes = sorted((Path(f["filename"]).name, f["code"]) for f in json.loads(result.output))
    assert codes == [*((f"m{i}.py", "HTD102") for i in range(6)), ("slow.py", INTERNAL_ERROR_CODE)]

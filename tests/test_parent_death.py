"""A parallel run's workers end when its main process is killed without its cleanup.

``python -m h2dlint -j 2`` is started on a few hundred files, its workers are found among its
children once they exist, the main process is sent SIGKILL (what the out-of-memory killer and
a CI timeout do), and every worker must be gone within seconds, not asleep under init.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="workers are forked, and /proc is read, only on Linux"
)

SOURCE = """import torch


def step(batch, device):
    for item in batch:
        item.to(device, non_blocking=True)
    return [int(x.item()) for x in batch]
"""


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # fields[0] is the state, fields[1] the parent
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_end_when_the_main_process_is_killed(tmp_path: Path) -> None:
    for i in range(400):
        (tmp_path / f"m{i:03d}.py").write_text(SOURCE * 20)
    command = [sys.executable, "-m", "h2dlint", "check", "--no-cache", "-j", "2", str(tmp_path)]
    # Without the project index: the run's only children are then its pool's workers (the
    # index may fork a short-lived pool of its own first, whose processes end by themselves).
    env = {**os.environ, "H2DLINT_NO_PROJECT_INDEX": "1"}
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
            workers = _children(proc.pid)
            time.sleep(0.02)
        if proc.poll() is not None:
            pytest.skip("the run ended before its workers were seen (a very fast machine)")
        assert workers, "no worker started within a minute"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.05)
        left = sorted(pid for pid in workers if _alive(pid))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for pid in left:  # never leave them behind, whatever the assertion says
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"workers {left} outlived their killed main process"

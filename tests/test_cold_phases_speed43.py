"""benchmarks/cold_phases.py: every phase it names is found and timed, in every process.

The script wraps h2dlint's functions by module and name: a renamed function must fail here, not
leave a phase of the table silently empty. No timing is asserted, only what was counted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "cold_phases.py"

FLAGGED = """\
import torch


def step(batch, device):
    x = torch.randn(4, 4)
    y = x.to(device, non_blocking=True)
    if y.sum() > 0:
        return y.item()
    return y, [t.to(device) for t in batch]
"""

CLEAN = """\
def add(a, b):
    return a + b
"""


def _tree(root: Path) -> Path:
    tree = root / "tiny"
    (tree / "pkg").mkdir(parents=True)
    for i in range(5):
        (tree / "pkg" / f"model_{i}.py").write_text(FLAGGED)
    (tree / "util.py").write_text(CLEAN)
    return tree


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def _counts(out: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("[0-9]*.json"))]


def test_one_process_counts_each_phase_once_per_file(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    out = tmp_path / "j1"
    run = _run("--out", str(out), "--", "--no-cache", "-j", "1", "--exit-zero", str(tree))
    assert run.returncode == 0, run.stderr
    (counts,) = _counts(out)
    assert counts["main"] is True
    calls = counts["calls"]
    assert isinstance(calls, dict)
    assert calls["the rest of a file's work (digests, trees offered)"] == 6
    assert calls["candidate filter"] == 6
    # A file whose tree the summary store made already (for another file's facts) is not
    # parsed again (project/kept_trees.py).
    assert 1 <= calls["CPython parse of the files checked"] <= 6
    assert calls["libcst parse of the files checked"] == 5  # the clean file has no candidate
    assert calls["the walk, contexts, locating reports"] == 5
    assert calls["rule HTD102"] > 0 and calls["rule HTD202"] > 0
    assert calls["reporter"] == 1 and calls["discovery"] == 1
    seconds = counts["seconds"]
    assert isinstance(seconds, dict)
    own = sum(v for k, v in seconds.items() if k != "all of the process (process_time)")
    assert own <= seconds["all of the process (process_time)"] + 1e-6  # no phase twice


def test_workers_count_their_own_phases_and_the_report_sums_them(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    out = tmp_path / "j2"
    run = _run("--out", str(out), "--", "--no-cache", "-j", "2", "--exit-zero", str(tree))
    assert run.returncode == 0, run.stderr
    counts = _counts(out)
    workers = [c for c in counts if not c["main"]]
    assert len(counts) == 3 and len(workers) == 2
    # A worker starts from zero at the fork: the main process's phases are not counted again.
    assert all("discovery" not in c["calls"] for c in workers)  # type: ignore[operator]
    per_file = "the rest of a file's work (digests, trees offered)"
    assert sum(c["calls"].get(per_file, 0) for c in workers) == 6  # type: ignore[attr-defined]
    floor = _run("--out", str(out), "--floor", str(tree))
    assert floor.returncode == 0, floor.stderr
    assert json.loads((out / "floor.json").read_text())["files"] == 6
    report = _run("--compare", str(tmp_path / "j2"), str(out))
    assert report.returncode == 0, report.stderr
    assert "libcst parse of the files checked | " in report.stdout
    assert "x floor" in report.stdout
    assert "processes: 3, 3" in report.stdout

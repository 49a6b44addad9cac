"""benchmarks/bench_lint.py runs end to end on a tiny local tree (no download, no peers).

The real benchmark downloads packages and takes many minutes; it is not part of the test run.
This only checks that the script works: every variant runs, the table prints, and the ratios it
reports are numbers.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_lint.py"

FLAGGED = """\
import torch


def step(batch, device):
    x = torch.randn(4, 4)
    y = x.to(device, non_blocking=True)
    return y, [t.to(device) for t in batch]
"""

CLEAN = """\
def add(a, b):
    return a + b
"""


def _tiny_tree(root: Path) -> Path:
    tree = root / "tiny"
    (tree / "pkg").mkdir(parents=True)
    for i in range(5):
        (tree / "pkg" / f"model_{i}.py").write_text(FLAGGED)
    (tree / "util.py").write_text(CLEAN)
    (tree / "broken.py").write_text("def f(:\n")
    return tree


def test_benchmark_script_runs_on_a_tiny_tree(tmp_path: Path) -> None:
    tree = _tiny_tree(tmp_path)
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--tree",
            str(tree),
            "--no-peers",
            "--quick",
            "--bench-dir",
            str(tmp_path / "bench"),
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    table = done.stdout
    assert "## tiny: 7 files" in table
    for label in (
        "libcst parse_module, 1 process",
        "h2dlint cold (--no-cache), -j 1",
        "h2dlint warm cache",
        "pre-commit",
        "h2dlint --version",
        "## targets (tiny)",
        "## where h2dlint spends its time",
        "parse:libcst",
    ):
        assert label in table, label
    assert "n/a: " not in table  # every variant of h2dlint and the floor produced a sample

    report = json.loads(out.read_text())
    (entry,) = report["trees"]
    assert entry["files"] == 7
    for key in ("floor_1", "floor_n", "cold_1", "cold_n", "warm", "precommit", "version"):
        summary = entry["variants"][key]["summary"]
        assert summary is not None, key
        assert summary["wall_s"] > 0
        assert summary["max_rss_mb"] > 0
    for name in (
        "h2dlint/floor, all cores (wall)",
        "h2dlint/floor, 1 process (wall)",
        "warm/cold (wall)",
    ):
        value = entry["ratios"][name]
        assert isinstance(value, float) and math.isfinite(value) and value > 0, name
    # Peers were not run: their ratios are absent, not made up.
    assert entry["ratios"]["h2dlint/TorchFix (wall)"] is None
    assert report["version"]["imports_libcst"] is False
    assert report["version"]["imports_torch"] is False
    buckets = report["profile"]["buckets_s"]
    assert buckets["parse:libcst"] > 0
    assert math.isclose(
        sum(buckets.values()), report["profile"]["total_s"], rel_tol=0.05, abs_tol=0.05
    )


def test_profile_workers_profiles_every_worker_of_a_parallel_run(tmp_path: Path) -> None:
    # The script wraps the runner's worker initializer: a renamed initializer must fail here,
    # not leave the device's profiles of workers silently empty.
    tree = _tiny_tree(tmp_path)
    out = tmp_path / "prof"
    script = ROOT / "benchmarks" / "profile_workers.py"
    args = ["--out", str(out), "--", "--no-cache", "-j", "2", "--exit-zero", str(tree)]
    run = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (out / "main.prof").exists()
    assert len(list(out.glob("worker-*.prof"))) == 2


def test_index_work_counts_every_process_and_compares_two_runs(tmp_path: Path) -> None:
    # The script wraps the index's methods by name: a renamed method must fail here, not
    # leave the counts silently empty.
    tree = _tiny_tree(tmp_path)
    script = ROOT / "benchmarks" / "index_work.py"
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}"
        args = ["--out", str(out), "--", "--no-cache", "-j", jobs, "--exit-zero", str(tree)]
        run = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs.append(out)
    assert len(list(outs[1].glob("*.json"))) == 2  # one file per worker
    counts = json.loads(next(outs[0].glob("*.json")).read_text())
    assert counts["stats"]["pipeline.process (all of a file's work)"][0] == 7
    run = subprocess.run(
        [sys.executable, str(script), "--compare", str(outs[0]), str(outs[1])],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "libcst parses of other modules" in run.stdout

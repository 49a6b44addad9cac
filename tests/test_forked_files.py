"""A parallel run with as many workers as files forks a process per file
(``h2dlint/forked_files.py``): the same findings as one process and as a pool; a process that
dies costs its own file only (checked again in a fresh process, an internal error if that one
dies too); results of any size come back whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_bad_input import FLAGGED, hits, lint

import h2dlint.forked_files
import h2dlint.runner
from h2dlint.jobs import FileJob, FileResult
from h2dlint.pipeline import process


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for i in range(5):
        (tmp_path / f"f{i}.py").write_text(FLAGGED + f"# file {i}\n" + "x = 1\n" * (100 * i))
    return tmp_path


def _forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records how many files each call of ``check_each`` was given."""
    calls: list[int] = []
    real = h2dlint.runner.check_each

    def counting(jobs: list[FileJob], *args: object) -> list[FileResult]:
        calls.append(len(jobs))
        return real(jobs, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(h2dlint.runner, "check_each", counting)
    return calls


def test_a_process_per_file_finds_what_one_process_and_a_pool_find(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _forks(monkeypatch)
    alone, pool, each = (lint(f"-j{n}", ".").stdout for n in (1, 2, 5))
    assert calls == [5]  # only -j5 has a worker per file
    assert alone == pool == each
    assert len([h for h in hits(each) if h.code == "HTD102"]) == 5


def _dies_on_marked(job: FileJob) -> FileResult:
    """A stand-in for a crash in native code: the process dies without a word."""
    if b"# crash" in job.data:
        os._exit(70)
    return process(job)


def test_a_process_that_dies_costs_its_own_file_only(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "f3.py").write_text("# crash\n" + FLAGGED)
    calls = _forks(monkeypatch)
    monkeypatch.setattr(h2dlint.runner, "process", _dies_on_marked)
    result = lint("-j5", ".")
    found = hits(result.stdout)
    assert [(h.path, h.code) for h in found if h.path == "f3.py"] == [("f3.py", "E900")]
    assert "died" in next(h for h in found if h.path == "f3.py").message
    assert {h.path for h in found if h.code == "HTD102"} == {"f0.py", "f1.py", "f2.py", "f4.py"}
    assert result.exit_code == 2
    assert calls == [5]


def test_a_process_that_dies_once_is_checked_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = project / "died-once"

    def dies_once(job: FileJob) -> FileResult:
        if job.path.endswith("f2.py") and not marker.exists():
            marker.write_text("")
            os._exit(70)
        return process(job)

    monkeypatch.setattr(h2dlint.runner, "process", dies_once)
    found = hits(lint("-j5", ".").stdout)
    assert marker.exists()
    assert sorted(h.path for h in found if h.code == "HTD102") == [f"f{i}.py" for i in range(5)]
    assert not [h for h in found if h.code == "E900"]


def test_a_result_larger_than_a_pipe_holds_comes_back_whole() -> None:
    big = b"x" * (3 << 20)

    def work(job: FileJob) -> FileResult:
        return FileResult(job.display, [], final_data=job.data + big)

    jobs = [
        FileJob(path=f"f{i}.py", display=f"f{i}.py", data=b"%d" % i, rules=()) for i in range(3)
    ]
    results = h2dlint.forked_files.check_each(jobs, work, lambda parent: None, lambda job: None)  # type: ignore[arg-type,return-value]
    assert [r.final_data for r in results] == [b"%d" % i + big for i in range(3)]


def test_a_process_per_file_fixes_each_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_interrupt import _fixable_source

    found = _fixable_source()
    if found is None:
        pytest.skip("no registered rule offers a fix")
    source, fixed = found
    monkeypatch.chdir(tmp_path)
    names = [f"f{i}.py" for i in range(5)]
    for name in names:
        (tmp_path / name).write_text(source)
    calls = _forks(monkeypatch)
    lint("--fix", "--unsafe-fixes", "-j5", *names)
    assert calls == [5]
    assert [(tmp_path / name).read_text() for name in names] == [fixed] * 5

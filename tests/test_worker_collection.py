"""A paused garbage collector (a pool worker's) stays paused between files: the young
collection that frees a file's cycles runs before the next file, not after the last one."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_packed import PACKAGE

import h2dlint.pipeline as pipeline
from h2dlint.cli import main
from h2dlint.jobs import EnabledRule, FileJob, FileResult, Mode
from h2dlint.pipeline import process
from h2dlint.registry import all_rules

TEXT = "import torch\nx = torch.ones(3).to('cuda', non_blocking=True)\n"


def _job() -> FileJob:
    rules = (EnabledRule(all_rules()["HTD102"]),)
    return FileJob("a.py", "a.py", TEXT.encode(), rules, mode=Mode.CHECK)


@pytest.fixture
def collections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    seen: list[int] = []
    real = gc.collect

    def counting(generation: int = 2) -> int:
        seen.append(generation)
        return real(generation)

    monkeypatch.setattr(gc, "collect", counting)
    monkeypatch.setattr(pipeline, "_LEFT_GARBAGE", False)
    was = gc.isenabled()
    yield seen
    if was:
        gc.enable()


def test_an_enabled_collector_frees_after_each_file(collections: list[int]) -> None:
    gc.enable()
    process(_job())
    assert collections == [0]
    assert gc.isenabled()


def test_a_paused_collector_frees_before_the_next_file(collections: list[int]) -> None:
    gc.disable()
    process(_job())
    assert collections == []  # the last file of a worker pays nothing
    assert not gc.isenabled()
    process(_job())
    assert collections == [0]  # the first file's cycles, freed before the second


@pytest.mark.parametrize("jobs", ["1", "4"])
def test_a_run_sets_up_with_the_collector_paused_and_leaves_nothing_frozen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    """The run's set-up (imports, the project index) runs with the collector paused and what
    it made frozen (``collector.paused``); the files are checked with it off (each file's
    cycles freed before the next one, as in a worker: session 46), and it runs again, with
    nothing frozen, once the run is over."""
    from h2dlint import runner

    monkeypatch.chdir(tmp_path)
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(text)
    states: list[tuple[bool, bool]] = []
    real = runner._execute_jobs

    def checking(job_list: list[FileJob], requested: int) -> list[FileResult]:
        states.append((gc.isenabled(), gc.get_freeze_count() > 0))
        return real(job_list, requested)

    monkeypatch.setattr(runner, "_execute_jobs", checking)
    gc.enable()
    try:
        result = CliRunner().invoke(
            main,
            ["--select", "HTD102", "--no-cache", "--output-format", "json", "-j", jobs, "pkg"],
            catch_exceptions=False,
        )
        assert states == [(False, True)]  # off, with the set-up's objects frozen
        assert gc.isenabled() and gc.get_freeze_count() == 0
        assert [f["code"] for f in json.loads(result.stdout)] == ["HTD102"]
    finally:
        gc.unfreeze()

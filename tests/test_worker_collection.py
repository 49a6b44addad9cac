"""A paused garbage collector (a pool worker's) stays paused between files: the young
collection that frees a file's cycles runs before the next file, not after the last one."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import h2dlint.pipeline as pipeline
from h2dlint.jobs import EnabledRule, FileJob, Mode
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

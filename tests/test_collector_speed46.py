"""The cyclic collector around a run's files and what follows them (session 46).

A run checks the files in its own process (``-j 1``, or fewer files than a pool is worth) with
the collector off, as a worker does: each file's cycles are freed before the next file (up to a
pre-commit run's few files, what each leaves is frozen instead, unwalked), the last file's not
at all, and what follows the files (the summaries and results saved, the report) walks
nothing. The collector is on again after the run where it was before, and the findings are
those of a run without a cache, warm or after an edit.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import h2dlint.cache
import h2dlint.pipeline
import h2dlint.runner
from h2dlint.cli import main
from h2dlint.collector import collector_off
from h2dlint.jobs import FileJob, FileResult

HOT = (
    "import torch\n\n\n"
    "def train(model, batches):\n"
    "    for batch in batches:\n"
    "        x = torch.tensor(batch).to('cuda', non_blocking=True)\n"
    "        model(x)\n"
)
HELPER = "import torch\n\n\ndef move(x, dev):\n    return x.to(dev, non_blocking=True)\n"
CALLER = "from helper import move\n\n\ndef step(xs):\n    for x in xs:\n        move(x, 'cuda')\n"


@pytest.fixture
def collecting() -> Iterator[None]:
    """The collector on for the test, as a fresh process has it; restored afterwards."""
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was:
            gc.disable()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(h2dlint.cache, "RACY_WINDOW_NS", 0)
    src = tmp_path / "src"
    src.mkdir()
    (src / "hot.py").write_text(HOT)
    (src / "helper.py").write_text(HELPER)
    (src / "caller.py").write_text(CALLER)
    return tmp_path


def lint(*args: str) -> Result:
    return CliRunner().invoke(
        main, ["-j1", "--no-color", "--output-format", "json", "--select", "ALL", *args]
    )


def findings(result: Result) -> list[tuple[str, str, int, int]]:
    assert result.exit_code in (0, 1), result.output
    return [
        (Path(f["filename"]).name, f["code"], f["location"]["row"], f["location"]["column"])
        for f in json.loads(result.stdout)
    ]


def test_collector_off_disables_and_restores(collecting: None) -> None:
    with collector_off():
        assert not gc.isenabled()
        with collector_off():
            assert not gc.isenabled()
        assert not gc.isenabled()  # an inner block leaves it as the outer one set it
    assert gc.isenabled()
    gc.disable()
    with collector_off():
        assert not gc.isenabled()
    assert not gc.isenabled()  # off before, off after
    gc.enable()


def test_collector_off_restores_after_an_error(collecting: None) -> None:
    with pytest.raises(RuntimeError), collector_off():
        raise RuntimeError
    assert gc.isenabled()


def test_files_checked_in_process_with_the_collector_off_and_on_again_after(
    project: Path, monkeypatch: pytest.MonkeyPatch, collecting: None
) -> None:
    seen: list[bool] = []
    real = h2dlint.runner.process

    def process(job: FileJob) -> FileResult:
        seen.append(gc.isenabled())
        return real(job)

    saves: list[bool] = []
    real_save = h2dlint.cache.SummaryFile.save

    def save(self: h2dlint.cache.SummaryFile, store: object) -> None:
        saves.append(gc.isenabled())
        real_save(self, store)  # type: ignore[arg-type]

    monkeypatch.setattr(h2dlint.runner, "process", process)
    monkeypatch.setattr(h2dlint.cache.SummaryFile, "save", save)
    result = lint("--cache-dir", str(project / "cache"), "src")
    assert seen == [False, False, False]
    assert saves == [False]
    assert gc.isenabled()
    assert findings(result) == findings(lint("--no-cache", "src"))


def _checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The frozen objects' count as each file's check starts."""
    frozen: list[int] = []
    real = h2dlint.runner.process

    def process(job: FileJob) -> FileResult:
        frozen.append(gc.get_freeze_count())
        return real(job)

    monkeypatch.setattr(h2dlint.runner, "process", process)
    return frozen


def test_a_few_files_leave_their_objects_frozen_not_walked(
    project: Path, monkeypatch: pytest.MonkeyPatch, collecting: None
) -> None:
    """Up to FREEZE_BETWEEN_FILES_UP_TO files in this process: what each file leaves is frozen
    after it (no young collection walks it before the next file), and unfrozen at the end."""
    frozen = _checked(monkeypatch)
    result = lint("--no-cache", "src")
    assert frozen[0] < frozen[1] < frozen[2]
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    monkeypatch.setattr(h2dlint.runner, "FREEZE_BETWEEN_FILES_UP_TO", 0)
    assert findings(lint("--no-cache", "src")) == findings(result)


def test_more_files_have_each_files_cycles_freed_before_the_next_file(
    project: Path, monkeypatch: pytest.MonkeyPatch, collecting: None
) -> None:
    """Above it (a whole tree in one process), the pipeline's young collection before each
    file but the first frees the cycles of the one before, as in a worker; nothing is frozen
    between files."""
    collections: list[int] = []
    real_collect = gc.collect

    def collect(generation: int = 2) -> int:
        collections.append(generation)
        return real_collect(generation)

    monkeypatch.setattr(h2dlint.pipeline.gc, "collect", collect)
    monkeypatch.setattr(h2dlint.pipeline, "_LEFT_GARBAGE", False)
    monkeypatch.setattr(h2dlint.runner, "FREEZE_BETWEEN_FILES_UP_TO", 2)
    frozen = _checked(monkeypatch)
    lint("--no-cache", "src")
    assert collections == [0, 0]  # before the second and the third file; not after the last
    assert frozen[0] == frozen[1] == frozen[2]


def test_warm_and_edited_runs_give_the_cold_findings(project: Path, collecting: None) -> None:
    cache = str(project / "cache")
    cold = findings(lint("--no-cache", "src"))
    assert any(code == "HTD102" for _name, code, _row, _column in cold)
    assert findings(lint("--cache-dir", cache, "src")) == cold
    assert findings(lint("--cache-dir", cache, "src")) == cold  # answered by the cache
    # One file edited: a second copy in the loop; the other files' results stay cached.
    hot = project / "src" / "hot.py"
    hot.write_text(HOT + "        y = torch.tensor(batch).to('cuda', non_blocking=True)\n")
    edited_cold = findings(lint("--no-cache", "src"))
    assert edited_cold != cold
    assert findings(lint("--cache-dir", cache, "src")) == edited_cold
    hot.write_text(HOT)  # and back: the first entry answers again
    assert findings(lint("--cache-dir", cache, "src")) == cold

"""The project-wide tables a pre-commit run's workers ask for (the modules defining each name,
the ``calls`` parts joined), built once before the fork from stored summaries
(``CallerIndex.share_stored_tables``, ``runner._share_called_names``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_packed import PACKAGE

from h2dlint import cache as cache_module
from h2dlint.cache import ResultCache, SummaryFile
from h2dlint.cli import main
from h2dlint.project import callers as callers_module
from h2dlint.project.index import ProjectIndex
from h2dlint.project.layout import build_layout

FILES = ["pkg/step.py", "pkg/other.py", "pkg/__init__.py", "pkg/impl.py"]


def _codes(*args: str) -> list[tuple[str, str, int]]:
    result = CliRunner().invoke(
        main, ["--select", "ALL", "--output-format", "json", *args], catch_exceptions=False
    )
    return [(f["filename"], f["code"], f["location"]["row"]) for f in json.loads(result.stdout)]


def _package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The files are written just before the runs: their statuses are remembered all the same.
    monkeypatch.setattr(cache_module, "RACY_WINDOW_NS", 0)
    monkeypatch.chdir(tmp_path)
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(text)
    for number in range(6):  # more modules, each defining and calling names
        (package / f"extra{number}.py").write_text(
            f"from .impl import helper\n\ndef use{number}():\n    return helper()\n"
        )


def _drop_results(tmp_path: Path) -> None:
    results = next((tmp_path / "cache").glob("results-v*.json"))
    data = json.loads(results.read_text())
    data["entries"] = {}
    results.write_text(json.dumps(data))


def _index(tmp_path: Path, stored: bool) -> ProjectIndex:
    cache = ResultCache(tmp_path / "cache", print)
    summaries = SummaryFile(cache.directory, cache.warn).load() if stored else None
    paths = [str(tmp_path / f) for f in FILES if (tmp_path / f).exists()]
    return ProjectIndex(
        build_layout(paths), summaries, cache.digest_by_status if stored else None, None
    )


def test_tables_from_stored_parts_are_those_built_on_demand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path, monkeypatch)
    assert _index(tmp_path, stored=False).caller_index().stored_tables(0.9) == ()
    _codes("-j1", "--cache-dir", "cache", "pkg")  # stores every module's summary parts
    asked = _index(tmp_path, stored=True)
    assert asked.caller_index().stored_tables(0.9) == ("defs",)  # no question needed calls
    asked.caller_index()._search_calls("helper")  # computes every module's calls part
    SummaryFile(tmp_path / "cache", print).save(asked.summaries)
    shared = _index(tmp_path, stored=True).caller_index()
    tables = shared.stored_tables(0.9)
    assert tables == ("defs", "calls")
    shared.share_stored_tables(tables)
    assert shared._defined is not None and shared._joined is not None
    lazy = _index(tmp_path, stored=True).caller_index()
    for name in ("helper", "use0", "step", "nothing"):
        assert shared._defining(name) == lazy._defining(name)
        assert shared._search_calls(name) == lazy._search_calls(name)
    assert shared._defining("helper") and shared._search_calls("helper")


def test_an_empty_cache_leaves_the_tables_to_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path, monkeypatch)
    (tmp_path / "cache").mkdir()
    assert _index(tmp_path, stored=True).caller_index().stored_tables(0.9) == ()


@pytest.mark.parametrize("edited", [False, True])
def test_a_pre_commit_run_shares_the_stored_tables_and_finds_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edited: bool
) -> None:
    _package(tmp_path, monkeypatch)
    whole = _codes("-j2", "--cache-dir", "cache", "pkg")
    assert whole == _codes("-j1", "--no-cache", "pkg")
    _drop_results(tmp_path)
    if edited:
        for name in FILES:
            with open(name, "a") as handle:
                handle.write("# edited\n")
    shared: list[tuple[str, ...]] = []
    original = callers_module.CallerIndex.share_stored_tables

    def recording(self: callers_module.CallerIndex, tables: tuple[str, ...]) -> None:
        shared.append(tables)
        original(self, tables)

    monkeypatch.setattr(callers_module.CallerIndex, "share_stored_tables", recording)
    found = _codes("-j4", "--cache-dir", "cache", *FILES)
    # Asked once, in the main process, before the workers forked; an edit to every file
    # leaves fewer than 90 % of the modules' parts stored (4 of 10 changed).
    assert shared == [() if edited else ("defs",)]
    assert found == _codes("-j1", "--no-cache", *FILES)
    assert found == _codes("-j4", "--no-cache", *FILES)
    assert [(Path(f).name, c) for f, c, _ in found] == [("step.py", "HTD102")]

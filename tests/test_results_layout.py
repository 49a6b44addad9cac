"""The result cache's file laid out one entry a line (h2dlint/results_layout.py): the entries
read lazily are those the whole document holds, entries not asked for are written back as read,
and a file not laid out this way is decoded whole with the same result."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from h2dlint import results_layout
from h2dlint.cache import CACHE_FORMAT, ResultCache
from h2dlint.diagnostics import Confidence, Edit, Finding, FixInfo, FixSafety, Location

NOW = int(time.time())  # entries not used for 30 days are dropped when the cache is written
PATHS = ["/p/a.py", "/p/b c.py", "/p/ünï.py", "/p/line\nbreak.py", '/p/"q".py']


def _entries(seed: int, count: int) -> dict[str, dict[str, Any]]:
    rng = random.Random(seed)
    made: dict[str, dict[str, Any]] = {}
    for number in range(count):
        entry: dict[str, Any] = {"used": NOW - rng.randrange(0, 10_000), "findings": []}
        for _ in range(rng.randrange(0, 3)):
            entry["findings"].append({"code": "HTD101", "message": "m\n\u00e9", "line": number})
        if rng.random() < 0.7:
            picked = rng.sample(PATHS, rng.randrange(1, len(PATHS)))
            entry["depends"] = [[p, f"{rng.randrange(4):032x}"] for p in picked]
        made[f"{number:040x}"] = entry
    return made


def _cache(directory: Path, entries: dict[str, dict[str, Any]]) -> ResultCache:
    cache = ResultCache(directory, pytest.fail)
    cache.rules = {"build": "b", "rules": []}
    cache.files = {p: [1, 2, 3, 4, "d", NOW] for p in PATHS}
    for key, entry in entries.items():
        cache.entries[key] = json.loads(json.dumps(entry))
    cache.dirty = True
    return cache


@pytest.mark.parametrize("seed", range(6))
def test_entries_read_lazily_are_the_documents(tmp_path: Path, seed: int) -> None:
    entries = _entries(seed, 1 + seed * 7)
    _cache(tmp_path, entries).save()
    file = tmp_path / f"results-v{CACHE_FORMAT}.json"
    data = file.read_bytes()
    assert results_layout.read(data) is not None  # laid out
    whole = json.loads(data)  # and one JSON document
    assert whole["format"] == CACHE_FORMAT
    table = whole["modules"]
    assert len({json.dumps(p) for p in table}) == len(table)  # each module named once
    for key, entry in whole["entries"].items():
        depends = entry.get("depends")
        if depends is not None:
            assert [table[at] for at in depends] == entries[key]["depends"]
    lazy = ResultCache(tmp_path, pytest.fail)
    assert lazy.files == {p: [1, 2, 3, 4, "d", NOW] for p in PATHS}
    assert lazy.rules == {"build": "b", "rules": []}
    assert sorted(lazy.entries) == sorted(entries)
    for key, entry in entries.items():
        assert lazy.entries.used(key) == entry["used"]
        assert lazy.entries[key] == entry
    # The same document on one line (another tool's rewrite) is decoded whole, the same.
    file.write_text(json.dumps(whole))
    assert results_layout.read(file.read_bytes()) is None
    again = ResultCache(tmp_path, pytest.fail)
    assert {key: again.entries[key] for key in again.entries} == entries


def test_entries_not_asked_for_are_written_back_as_read(tmp_path: Path) -> None:
    entries = _entries(7, 40)
    _cache(tmp_path, entries).save()
    file = tmp_path / f"results-v{CACHE_FORMAT}.json"
    before = file.read_bytes().split(b"\n")
    cache = ResultCache(tmp_path, pytest.fail)
    asked = sorted(entries)[:3]
    for key in asked:
        assert cache.entries[key] == entries[key]
    cache.entries[asked[0]]["used"] += 1
    new = {"used": NOW, "findings": [], "depends": [["/p/new.py", "e" * 32], ["/p/a.py", "f" * 32]]}
    cache.entries["ab" * 20] = new
    cache.dirty = True
    cache.save()
    after = file.read_bytes().split(b"\n")
    untouched = [line for line in before[1:-2] if not any(k.encode() in line for k in asked)]
    for line in untouched:  # byte for byte, the comma aside
        assert line.rstrip(b",") in {a.rstrip(b",") for a in after}
    header = json.loads(after[0][: -len(b',"entries":{')] + b"}")
    old_header = json.loads(before[0][: -len(b',"entries":{')] + b"}")
    assert header["modules"][: len(old_header["modules"])] == old_header["modules"]
    read = ResultCache(tmp_path, pytest.fail)
    expected = {**entries, "ab" * 20: new}
    expected[asked[0]] = {**entries[asked[0]], "used": entries[asked[0]]["used"] + 1}
    assert {key: read.entries[key] for key in read.entries} == expected


def test_a_table_of_modules_is_compacted_once_every_entry_was_decoded(tmp_path: Path) -> None:
    entries = _entries(3, 30)
    _cache(tmp_path, entries).save()
    cache = ResultCache(tmp_path, pytest.fail)
    for key in list(cache.entries):
        if key != sorted(entries)[0]:
            del cache.entries[key]
    for key in list(cache.entries):
        assert cache.entries[key] is not None  # decoded
    cache.dirty = True
    cache.save()
    whole = json.loads((tmp_path / f"results-v{CACHE_FORMAT}.json").read_bytes())
    kept = entries[sorted(entries)[0]].get("depends", [])
    assert whole["modules"] == kept


def test_a_table_grown_stale_is_compacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entries = _entries(4, 30)
    _cache(tmp_path, entries).save()
    cache = ResultCache(tmp_path, pytest.fail)
    dropped = [key for key in sorted(entries) if "depends" in entries[key]][:10]
    for key in dropped:
        del cache.entries[key]
    monkeypatch.setattr(results_layout, "MAX_STALE_MODULES", -1000)  # always stale
    cache.dirty = True
    cache.save()
    whole = json.loads((tmp_path / f"results-v{CACHE_FORMAT}.json").read_bytes())
    named = {
        json.dumps(p) for k, e in entries.items() if k not in dropped for p in e.get("depends", [])
    }
    assert {json.dumps(p) for p in whole["modules"]} == named
    assert len(whole["modules"]) == len(named)
    read = ResultCache(tmp_path, pytest.fail)
    assert {key: read.entries[key] for key in read.entries} == {
        k: e for k, e in entries.items() if k not in dropped
    }


@pytest.mark.parametrize(
    "broken",
    [b'"depends":[99]', b'"depends":[-1]', b'"depends":["0"]', b'"depends":5'],
    ids=["past-the-table", "negative", "not-a-position", "not-a-list"],
)
def test_an_entry_naming_no_module_of_the_table_is_absent(tmp_path: Path, broken: bytes) -> None:
    entries = {"0" * 40: {"used": NOW, "findings": [], "depends": [["/p/a.py", "d" * 32]]}}
    entries["1" * 40] = {"used": NOW, "findings": []}
    _cache(tmp_path, entries).save()
    file = tmp_path / f"results-v{CACHE_FORMAT}.json"
    file.write_bytes(file.read_bytes().replace(b'"depends":[0]', broken))
    cache = ResultCache(tmp_path, pytest.fail)
    assert cache.entries.get("0" * 40) is None
    assert cache.entries["1" * 40] == entries["1" * 40]


@pytest.mark.parametrize("cut", [1, 5, 40, -3, -1])
def test_a_file_cut_short_is_not_read_as_laid_out(tmp_path: Path, cut: int) -> None:
    _cache(tmp_path, _entries(1, 5)).save()
    data = (tmp_path / f"results-v{CACHE_FORMAT}.json").read_bytes()
    assert results_layout.read(data[: cut if cut > 0 else len(data) + cut]) is None


def test_findings_come_back_from_a_lazily_read_cache(tmp_path: Path) -> None:
    start, end = Location(3, 4), Location(3, 9)
    fix = FixInfo(FixSafety.SAFE, "stack them", (Edit("torch.stack(x)", start, end),))
    findings = [
        Finding("a.py", "HTD101", "moved per item", start, end, fix=fix),
        Finding("a.py", "HTD202", "m\u00e9", start, end, confidence=Confidence.MEDIUM),
    ]
    cache = ResultCache(tmp_path, pytest.fail)
    cache.put("9" * 40, findings, [("/p/a.py", "d" * 32)])
    cache.save()
    read = ResultCache(tmp_path, pytest.fail)
    read._seen_digests["/p/a.py"] = "d" * 32
    assert read.get("9" * 40, "a.py") == findings
    read._seen_digests["/p/a.py"] = "e" * 32
    assert read.get("9" * 40, "a.py") is None

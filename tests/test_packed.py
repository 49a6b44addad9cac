"""The summaries' file, packed by part (``h2dlint/project/packed.py``), and the runs that read
it: a part is decoded only when asked for, a damaged part counts as absent, parts read and not
changed are written back as they were, and a run with stored summaries finds what a run
without the cache finds after modules it consults were edited or deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from h2dlint.cache import SummaryFile, build_fingerprint
from h2dlint.cli import main
from h2dlint.project import packed
from h2dlint.project.summary import SUMMARY_FORMAT, SummaryStore


def _file(parts: dict[str, tuple[int, dict[str, object]]]) -> bytes:
    texts = {
        key: (stamp, packed.lay({name: packed.encode(value) for name, value in values.items()}))
        for key, (stamp, values) in parts.items()
    }
    return packed.write(texts, SUMMARY_FORMAT, "build")


def test_parts_come_back_as_written_each_decoded_alone() -> None:
    data = _file({"d1": (5, {"defs": ["f", "g"], "top": None}), "d2": (7, {}), "d3": (1, {})})
    found = packed.read(data, SUMMARY_FORMAT, "build")
    assert found is not None
    assert found.decode("d1", "defs") == (["f", "g"],)
    assert found.decode("d1", "top") == (None,)  # a part may be None: still a part
    assert found.decode("d1", "calls") is None and found.decode("d9", "defs") is None
    assert found.stamp("d1") == 5 and found.stamp("d2") == 7 and "d2" in found
    assert found.texts("d1") == {"defs": b'["f","g"]', "top": b"null"}
    assert found.texts("d2") == {}
    assert found.laid("d1") == ([("defs", 9), ("top", 13)], b'["f","g"]null')
    assert found.laid("d2") == ([], b"")


def test_a_file_of_another_build_or_format_or_without_a_header_is_not_read() -> None:
    data = _file({"d1": (5, {"defs": ["f"]})})
    assert packed.read(data, SUMMARY_FORMAT, "other") is None
    assert packed.read(data, SUMMARY_FORMAT + 1, "build") is None
    assert packed.read(b'{"format": 1}', SUMMARY_FORMAT, "build") is None
    assert packed.read(b"{not json\n[]", SUMMARY_FORMAT, "build") is None


def test_damaged_parts_count_as_absent() -> None:
    data = _file({"d1": (5, {"defs": ["f"], "top": {"imports": {}}}), "d2": (5, {"defs": []})})
    cut = packed.read(data[:-1], SUMMARY_FORMAT, "build")  # truncated: d2's part runs past
    assert cut is not None
    assert cut.decode("d1", "defs") == (["f"],)
    assert cut.decode("d2", "defs") is None
    header, body = data.split(b"\n", 1)
    garbled = packed.read(
        header + b"\n" + body.replace(b'["f"]', b'["f"}'), SUMMARY_FORMAT, "build"
    )
    assert garbled is not None
    assert garbled.decode("d1", "defs") is None  # does not decode
    assert garbled.decode("d1", "top") == ({"imports": {}},)
    entries = json.loads(header)
    entries["entries"]["d1"] = [5, 0, "defs", "x"]  # not an offset
    entries["entries"]["d2"] = [5, 9, "defs", 3]  # ends before it starts
    bad = packed.read(json.dumps(entries).encode() + b"\n" + body, SUMMARY_FORMAT, "build")
    assert bad is not None
    assert bad.decode("d1", "defs") is None and bad.decode("d2", "defs") is None


def test_a_loaded_store_decodes_only_the_parts_asked_for_and_writes_the_rest_as_stored(
    tmp_path: Path,
) -> None:
    first = SummaryStore()
    first.part("d1", "defs", lambda: ["f"])
    first.part("d1", "calls", lambda: " f ")
    first.part("d2", "defs", lambda: ["g"])
    first.part("d2", "edges", lambda: {"x": [1.5, None, "é"]})
    SummaryFile(tmp_path, print).save(first)
    run = SummaryFile(tmp_path, print)
    store = run.load()
    assert store.entries == {}  # nothing decoded yet
    assert store.stored("d1", "defs") == (["f"],)
    assert store.entries == {"d1": {"defs": ["f"]}}
    computed: list[str] = []
    assert store.part("d1", "calls", lambda: computed.append("calls")) == " f "
    assert computed == []
    store.part("d3", "defs", lambda: ["h"])
    store.part("d3", "calls", lambda: " h ")
    run.save(store)
    after = SummaryFile(tmp_path, print).load()
    assert after.stored("d2", "edges") == ({"x": [1.5, None, "é"]},)  # never decoded between
    assert after.stored("d2", "defs") == (["g"],)
    assert after.stored("d1", "calls") == (" f ",) and after.stored("d3", "calls") == (" h ",)
    assert after.stored("d3", "defs") == (["h"],)


def test_a_part_computed_or_merged_here_is_written_over_the_stored_one(tmp_path: Path) -> None:
    first = SummaryStore()
    first.part("d1", "defs", lambda: ["old"])
    SummaryFile(tmp_path, print).save(first)
    run = SummaryFile(tmp_path, print)
    store = run.load()
    store.merge({"d1": {"defs": ["new"], "calls": " g "}})  # as a worker's fresh parts come
    run.save(store)
    after = SummaryFile(tmp_path, print).load()
    assert after.stored("d1", "defs") == (["new"],) and after.stored("d1", "calls") == (" g ",)


def test_an_earlier_format_of_the_summaries_is_removed_when_they_are_written(
    tmp_path: Path,
) -> None:
    old = tmp_path / f"summaries-v{SUMMARY_FORMAT - 1}.json"
    old.write_text("{}")
    store = SummaryStore()
    store.part("d1", "defs", lambda: [])
    SummaryFile(tmp_path, print).save(store)
    assert not old.exists()
    data = (tmp_path / f"summaries-v{SUMMARY_FORMAT}.json").read_bytes()
    assert json.loads(data.split(b"\n", 1)[0])["build"] == build_fingerprint()


PACKAGE = {
    "__init__.py": "from .impl import helper\n",
    "impl.py": "import torch\n\ndef helper():\n    return torch.zeros(3)\n",
    "other.py": "def unrelated():\n    return 1\n",
    "step.py": (
        "from . import helper\n\ndef step(n):\n    return helper().to('cuda', non_blocking=True)\n"
    ),
}


def _codes(*args: str) -> list[tuple[str, str, int]]:
    result = CliRunner().invoke(
        main, ["--select", "ALL", "--output-format", "json", *args], catch_exceptions=False
    )
    return [(f["filename"], f["code"], f["location"]["row"]) for f in json.loads(result.stdout)]


@pytest.mark.parametrize("jobs", ["-j1", "-j4"])
def test_a_run_over_a_few_files_with_stored_summaries_finds_what_a_run_without_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    monkeypatch.chdir(tmp_path)
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(text)
    whole = _codes(jobs, "--cache-dir", "cache", "pkg")
    assert whole == _codes(jobs, "--no-cache", "pkg")
    assert [(Path(f).name, c, r) for f, c, r in whole] == [("step.py", "HTD102", 4)]
    results = next((tmp_path / "cache").glob("results-v*.json"))

    def few() -> list[tuple[str, str, int]]:
        # A pre-commit run: the files' own results dropped, the summaries kept.
        data = json.loads(results.read_text())
        data["entries"] = {}
        results.write_text(json.dumps(data))
        files = ["pkg/step.py", "pkg/other.py", "pkg/__init__.py", "pkg/impl.py"]
        files = [f for f in files if Path(f).exists()]
        found = _codes(jobs, "--cache-dir", "cache", *files)
        assert found == _codes(jobs, "--no-cache", *files)
        return found

    before = few()
    # The consulted module changed between runs: its stored summary is another content's.
    (package / "impl.py").write_text(
        "import torch\n\ndef helper():\n    return torch.zeros(3).pin_memory()\n"
    )
    edited = few()
    assert edited != before
    (package / "impl.py").unlink()  # ... and deleted
    few()
    (package / "impl.py").write_text(PACKAGE["impl.py"])  # back as it was: the stored parts
    assert few() == before


def _saved_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: object) -> None:
    """Save the same store over the same stored files with new summaries appended and laid out
    whole: the same bytes."""
    import shutil

    first = SummaryStore()
    first.part("d1", "defs", lambda: ["f"])
    first.part("d1", "calls", lambda: " f ")
    first.part("d1", "edges", lambda: {"f": ["g"]})
    first.part("d2", "defs", lambda: ["g"])
    first.part("d4", "defs", lambda: [])
    first.part("d2", "edges", lambda: {"x": [1.5, None, "é"]})
    SummaryFile(tmp_path / "stored", print).save(first)
    written = {}
    for way in ("appended", "whole"):
        directory = tmp_path / way
        shutil.copytree(tmp_path / "stored", directory)
        if way == "whole":
            monkeypatch.setattr(packed, "appended", lambda *args: None)
        run = SummaryFile(directory, print)
        run.now = 123
        store = run.load()
        change(store)  # type: ignore[operator]
        run.save(store)
        written[way] = sorted(
            (p.name, _held(p.read_bytes())) for p in directory.glob("summaries-*")
        )
        after = SummaryFile(directory, print).load()
        assert after.stored("d2", "edges") == ({"x": [1.5, None, "é"]},)
        assert after.stored("d1", "calls") == (" f ",)
        assert after.stored("d3", "defs") == (["h"],)
        assert after.stored("d3", "calls") == (" h ",)
    assert written["appended"] == written["whole"]


def _held(data: bytes) -> list[tuple[str, int | None, dict[str, bytes]]]:
    """What a summaries file holds: each key with its stamp and parts' texts, in order."""
    found = packed.read(data, SUMMARY_FORMAT, build_fingerprint())
    assert found is not None
    return [(key, found.stamp(key), found.texts(key)) for key in found.index]


def test_new_summaries_are_appended_as_laying_out_every_one_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pre-commit run computes the summaries of its edited files (new digests) only: they are
    laid out after the stored ones and appended to the stored files as a segment
    (``packed.appended``, ``packed.segment``), and the files hold what laying out every summary
    again gives."""
    calls: list[object] = []
    appended = packed.appended

    def counting(*args: object) -> object:
        found = appended(*args)  # type: ignore[arg-type]
        calls.append(found)
        return found

    monkeypatch.setattr(packed, "appended", counting)
    write, segment = packed.write, packed.segment
    whole: list[bool] = []

    def writing(*args: Any) -> bytes:
        whole.append(True)
        return write(*args)

    def appending(*args: Any) -> bytes:
        whole.append(False)
        return segment(*args)

    monkeypatch.setattr(packed, "write", writing)
    monkeypatch.setattr(packed, "segment", appending)

    def change(store: SummaryStore) -> None:
        store.part("d3", "defs", lambda: ["h"])
        store.part("d3", "calls", lambda: " h ")

    _saved_twice(tmp_path, monkeypatch, change)
    assert calls[0] == ["d3"]  # the main file: d3 laid out after the stored ones
    # stored (both files laid out), then appended to both, then laid out again
    assert whole == [True, True, False, False, True, True]


@pytest.mark.parametrize("old", ["defs", "calls"])
def test_a_stored_summary_given_a_new_part_is_laid_out_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str
) -> None:
    def change(store: SummaryStore) -> None:
        store.part("d3", "defs", lambda: ["h"])
        store.part("d3", "calls", lambda: " h ")
        store.merge({"d4": {old: ["new"]}})

    _saved_twice(tmp_path, monkeypatch, change)


def test_appended_needs_every_stored_key_first_with_its_stamp() -> None:
    data = _file({"d1": (5, {"defs": ["f"]}), "d2": (7, {"defs": []})})
    before = packed.read(data, SUMMARY_FORMAT, "build")
    assert before is not None
    assert packed.appended(before, {"d1": 5, "d2": 7, "d3": 9}, {"d3"}) == ["d3"]
    assert packed.appended(before, {"d1": 5, "d2": 7}, set()) == []
    assert packed.appended(before, {"d2": 7, "d1": 5, "d3": 9}, set()) is None  # order
    assert packed.appended(before, {"d1": 5, "d2": 8, "d3": 9}, set()) is None  # stamp
    assert packed.appended(before, {"d1": 5, "d3": 9}, set()) is None  # d2 dropped
    assert packed.appended(before, {"d1": 5, "d2": 7, "d3": 9}, {"d2"}) is None  # changed


# Raw part texts, as a damaged or hand-written file may hold them: JSON values, values with
# whitespace around them, numbers that the next text would extend, texts that do not decode.
RAW_PARTS = [
    b'["f","g"]',
    b"null",
    b"1",
    b"2.5e3",
    b"12",
    b".5",
    b'"a,b"',
    b' ["x"]',
    b'["x"] ',
    b'{"k":[1,2,{"z":null}]}',
    b'1,"',
    b'"',
    b"[1",
    b"2]",
    b"true",
    b'"\\u00e9"',
    b"",
    b"-0",
    b"0",
    b"7e",
    b'["\\ud800"]',
    b"NaN",
    b"Infinity",
]


def _raw_file(raws: list[bytes], name: str = "defs") -> packed.Packed:
    texts = {f"d{i}": (1, packed.lay({name: raw})) for i, raw in enumerate(raws)}
    found = packed.read(packed.write(texts, SUMMARY_FORMAT, "build"), SUMMARY_FORMAT, "build")
    assert found is not None
    return found


@pytest.mark.parametrize("order", [1, -1])
def test_parts_decoded_at_once_are_those_decoded_one_by_one(order: int) -> None:
    raws = RAW_PARTS[::order]
    found = _raw_file(raws)
    keys = [f"d{i}" for i in range(len(raws))] + ["d99"]
    alone = {key: found.decode(key, "defs") for key in keys}
    at_once = found.decode_many(keys, "defs")
    for key, value in at_once.items():
        assert alone[key] == (value,), key
    # Each part as ``encode`` writes it comes back at once, but a number (the next part's
    # text may extend it: ``1`` then ``2.5e3``): those are left to be decoded alone.
    missed = [
        raw
        for key, raw in zip(keys[:-1], raws, strict=True)
        if key not in at_once
        and alone[key] is not None
        and packed.encode(alone[key][0]) == raw  # type: ignore[index]
        and raw[:1] not in b"-0123456789"
    ]
    assert missed == [] and len(at_once) >= 8
    assert found.decode_many(keys, "calls") == {}


def test_texts_that_are_not_ascii_are_left_to_be_decoded_one_by_one() -> None:
    found = _raw_file(['["é"]'.encode(), b'["f"]'])
    assert found.decode_many(["d0", "d1"], "defs") == {}
    assert found.decode("d0", "defs") == (["é"],)


def test_a_store_knows_parts_decoded_at_once_as_it_would_decode_them() -> None:
    values = {"d1": ["f", "g"], "d2": [], "d3": ["h"]}
    data = _file({key: (1, {"defs": value, "top": None}) for key, value in values.items()})
    at_once = SummaryStore(packed=packed.read(data, SUMMARY_FORMAT, "build"))
    alone = SummaryStore(packed=packed.read(data, SUMMARY_FORMAT, "build"))
    at_once.decode_stored(["d1", None, "d3", "d9"], ("defs",))
    assert set(at_once.entries) == {"d1", "d3"}
    for key in (*values, "d9"):
        assert at_once.stored(key, "defs") == alone.stored(key, "defs")
        assert at_once.stored(key, "top") == alone.stored(key, "top")
    assert at_once.entries == alone.entries


def _laid(parts: dict[str, tuple[int, dict[str, object]]]) -> dict[str, tuple[int, packed.Laid]]:
    return {
        key: (stamp, packed.lay({name: packed.encode(value) for name, value in values.items()}))
        for key, (stamp, values) in parts.items()
    }


def test_appended_segments_are_read_with_the_first_the_later_key_winning() -> None:
    data = _file({"d1": (5, {"defs": ["f"]}), "d2": (5, {"defs": ["g"]})})
    data += packed.segment(_laid({"d3": (6, {"defs": ["h"], "calls": " h "})}), 14, "x")
    data += packed.segment(_laid({"d3": (6, {"defs": ["h"]})}), SUMMARY_FORMAT, "build")
    assert packed.read(data, SUMMARY_FORMAT, "build").segments == 1  # another format: ends it
    data = _file({"d1": (5, {"defs": ["f"]}), "d2": (5, {"defs": ["g"]})})
    data += packed.segment(
        _laid({"d3": (6, {"defs": ["h"], "calls": " h "})}), SUMMARY_FORMAT, "build"
    )
    data += packed.segment(
        _laid({"d2": (7, {"defs": ["k"]}), "d4": (7, {})}), SUMMARY_FORMAT, "build"
    )
    found = packed.read(data, SUMMARY_FORMAT, "build")
    assert found is not None and found.segments == 3
    assert list(found.index) == ["d1", "d2", "d3", "d4"]
    assert found.decode("d1", "defs") == (["f"],) and found.decode("d2", "defs") == (["k"],)
    assert found.stamp("d2") == 7 and found.texts("d3") == {"defs": b'["h"]', "calls": b'" h "'}
    assert found.decode_many(["d1", "d2", "d3"], "defs") == {"d1": ["f"], "d2": ["k"], "d3": ["h"]}
    assert found.laid("d3") == ([("defs", 5), ("calls", 10)], b'["h"]" h "')


@pytest.mark.parametrize("damage", ["cut", "check", "build", "header"])
def test_an_appended_segment_cut_short_or_damaged_ends_the_file_there(damage: str) -> None:
    first = _file({"d1": (5, {"defs": ["f"]})})
    good = packed.segment(_laid({"d2": (6, {"defs": ["g"]})}), SUMMARY_FORMAT, "build")
    bad = packed.segment(_laid({"d3": (6, {"defs": ["h"]})}), SUMMARY_FORMAT, "build")
    if damage == "cut":
        bad = bad[:-1]
    elif damage == "check":
        bad = bad.replace(b'["h"]', b'["i"]')
    elif damage == "build":
        bad = packed.segment(_laid({"d3": (6, {"defs": ["h"]})}), SUMMARY_FORMAT, "other")
    else:
        bad = bad.replace(b'"size"', b'"sise"')
    after = packed.segment(_laid({"d4": (6, {"defs": ["j"]})}), SUMMARY_FORMAT, "build")
    found = packed.read(first + good + bad + after, SUMMARY_FORMAT, "build")
    assert found is not None and found.segments == 2
    assert list(found.index) == ["d1", "d2"] and found.decode("d2", "defs") == (["g"],)


def test_a_file_of_many_segments_is_written_whole_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import h2dlint.cache as cache

    monkeypatch.setattr(cache, "MAX_SEGMENTS", 3)
    for run in range(4):
        summaries = SummaryFile(tmp_path, print)
        store = summaries.load()
        store.part(f"d{run}", "defs", lambda: [f"f{run}"])  # noqa: B023
        store.part(f"d{run}", "calls", lambda: f" f{run} ")  # noqa: B023
        summaries.save(store)
        for file in (summaries.file, summaries.lazy_file):
            found = packed.read(file.read_bytes(), SUMMARY_FORMAT, build_fingerprint())
            assert found is not None and found.segments == [1, 2, 3, 1][run]
            assert list(found.index) == [f"d{n}" for n in range(run + 1)]
    store = SummaryFile(tmp_path, print).load()
    assert [store.stored(f"d{n}", "calls") for n in range(4)] == [(f" f{n} ",) for n in range(4)]

"""``h2dlint verify`` on the CPU: fixtures and their contract, pair discovery, output comparison,
verdicts from hand-built measurements, the report, exit codes, and the parts of the measurement
that run without a GPU. The GPU end of it is in test_verify_gpu.py."""

from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from h2dlint.cli import main
from h2dlint.verify import command
from h2dlint.verify.compare import compare_outputs
from h2dlint.verify.copies import PAGEABLE_H2D, PINNED_H2D, CopyRecord, memcpy_counts
from h2dlint.verify.fixtures import (
    Fixture,
    FixtureError,
    FixturePair,
    PairOptions,
    discover_pairs,
    load_fixture,
    pair_options,
)
from h2dlint.verify.recorders import sync_warnings
from h2dlint.verify.records import (
    SYNC_DEBUG,
    SYNC_STAGED,
    SYNC_WARNING,
    PairMeasurement,
    SideMeasurement,
    SyncRecord,
    median_and_spread,
)
from h2dlint.verify.report import PairOutcome, render_json, render_text
from h2dlint.verify.verdict import (
    FLOOR_MS,
    Verdict,
    blocks,
    judge,
    judge_pair,
    race_shown,
    tolerance,
)

ROOT = Path(__file__).resolve().parents[1]
HTD102 = ROOT / "fixtures" / "HTD102"
NEEDS_TORCH = "needs torch (pip install '.[verify]')"

PLAIN = """\
def setup(device):
    return {"n": 3}


def run(state):
    return [state["n"], (1.5, "x"), {"k": None}]
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def make_pair(root: Path, before: str = PLAIN, after: str = PLAIN) -> Path:
    write(root / "before.py", before)
    write(root / "after.py", after)
    return root


def verify(args: list[str]) -> Result:
    return CliRunner().invoke(main, ["verify", *args], catch_exceptions=False)


# -- fixtures: loading and the contract ----------------------------------------------------------


def test_load_fixture_reads_functions_and_options(tmp_path: Path) -> None:
    path = write(tmp_path / "f.py", PLAIN + "HOST_READ = True\nSYNC_RULE = False\nREPEATS = 7\n")
    fixture = load_fixture(path)
    assert fixture.path == path
    assert fixture.run(fixture.setup("cpu")) == [3, (1.5, "x"), {"k": None}]
    assert (fixture.host_read, fixture.sync_rule, fixture.repeats) == (True, False, 7)
    assert (load_fixture(write(tmp_path / "g.py", PLAIN)).host_read) is None


def test_same_named_fixtures_load_as_distinct_modules(tmp_path: Path) -> None:
    one = load_fixture(write(tmp_path / "a" / "before.py", PLAIN))
    two = load_fixture(write(tmp_path / "b" / "before.py", PLAIN.replace('"n": 3', '"n": 4')))
    assert one.run(one.setup(None))[0] == 3
    assert two.run(two.setup(None))[0] == 4
    assert one.run.__module__ != two.run.__module__


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("def run(state):\n    return 1\n", "fixture has no `setup(device)` function"),
        ("def setup(device):\n    return 1\n", "fixture has no `run(state)` function"),
        ("setup = 3\ndef run(state):\n    return 1\n", "`setup` must be a function"),
        ("def setup():\n    return 1\ndef run(state):\n    return 1\n", "exactly one argument"),
        ("def setup(d):\n    return 1\ndef run(a, b):\n    return 1\n", "`run(a, b)`"),
        ("def setup(d):\n    return 1\ndef run(state:\n    return 1\n", ":3:"),
        ("import no_such_module_h2dlint\n", "raised ModuleNotFoundError"),
        ("raise RuntimeError('boom')\n", "raised RuntimeError: boom"),
        (PLAIN + "HOST_READ = 'yes'\n", "`HOST_READ` must be True or False"),
        (PLAIN + "SYNC_RULE = 1\n", "`SYNC_RULE` must be True or False"),
        (PLAIN + "REPEATS = 0\n", "`REPEATS` must be a positive integer"),
        (PLAIN + "REPEATS = True\n", "`REPEATS` must be a positive integer"),
    ],
)
def test_contract_errors_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path / "bad_fixture.py", text)
    with pytest.raises(FixtureError) as info:
        load_fixture(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_syntax_error_is_located(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.py", "def setup(d):\n    return (\n")
    with pytest.raises(FixtureError, match=r"broken\.py:\d+(:\d+)?: syntax error in fixture"):
        load_fixture(path)


def test_failed_import_leaves_no_module_behind(tmp_path: Path) -> None:
    before = set(sys.modules)
    with pytest.raises(FixtureError):
        load_fixture(write(tmp_path / "boom.py", "raise ValueError('x')\n"))
    assert not [name for name in set(sys.modules) - before if "fixture" in name]


def test_fixture_must_be_a_python_file(tmp_path: Path) -> None:
    with pytest.raises(FixtureError, match="no such fixture file"):
        load_fixture(tmp_path / "missing.py")
    with pytest.raises(FixtureError, match="must be a Python file"):
        load_fixture(write(tmp_path / "fixture.txt", PLAIN))


def test_pair_options_prefer_after_then_before(tmp_path: Path) -> None:
    def fixture(**options: object) -> Fixture:
        return Fixture(tmp_path, lambda d: d, lambda s: s, **options)  # type: ignore[arg-type]

    assert pair_options(fixture(), fixture()) == PairOptions(False, False, None)
    assert pair_options(fixture(host_read=True, repeats=5), fixture()) == PairOptions(
        True, False, 5
    )
    assert pair_options(fixture(host_read=True), fixture(host_read=False, sync_rule=True)) == (
        PairOptions(False, True, None)
    )


# -- discovering pairs -----------------------------------------------------------------------------


def test_two_files_make_one_pair(tmp_path: Path) -> None:
    a = write(tmp_path / "case" / "slow.py", PLAIN)
    b = write(tmp_path / "case" / "fast.py", PLAIN)
    assert discover_pairs([a, b]) == [FixturePair("case", a, b)]
    c = write(tmp_path / "other" / "fast.py", PLAIN)
    assert discover_pairs([a, c]) == [FixturePair("slow vs fast", a, c)]


def test_directory_pair_and_directory_of_pairs(tmp_path: Path) -> None:
    one = make_pair(tmp_path / "all" / "HTD102")
    two = make_pair(tmp_path / "all" / "A001")
    (tmp_path / "all" / "README").write_text("not a pair")
    (tmp_path / "all" / "notes").mkdir()
    assert discover_pairs([one]) == [FixturePair("HTD102", one / "before.py", one / "after.py")]
    assert [p.name for p in discover_pairs([tmp_path / "all"])] == ["A001", "HTD102"]
    assert [p.name for p in discover_pairs([one, two])] == ["HTD102", "A001"]


def test_same_named_pairs_are_told_apart(tmp_path: Path) -> None:
    one = make_pair(tmp_path / "x" / "case")
    two = make_pair(tmp_path / "y" / "case")
    names = [p.name for p in discover_pairs([one, two])]
    assert len(set(names)) == 2


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ("missing", "no such file or directory"),
        ("one_file", "exactly two fixture files"),
        ("three_files", "exactly two fixture files"),
        ("file_and_dir", "either two fixture files"),
        ("empty_dir", "no fixture pairs"),
        ("half_pair", "has before.py but no after.py"),
        ("half_pair_below", "has after.py but no before.py"),
    ],
)
def test_discovery_errors(tmp_path: Path, layout: str, message: str) -> None:
    f1, f2, f3 = (write(tmp_path / f"f{i}.py", PLAIN) for i in range(3))
    empty = tmp_path / "empty"
    empty.mkdir()
    half = write(tmp_path / "half" / "before.py", PLAIN).parent
    below = write(tmp_path / "below" / "case" / "after.py", PLAIN).parent.parent
    paths = {
        "missing": [tmp_path / "nope"],
        "one_file": [f1],
        "three_files": [f1, f2, f3],
        "file_and_dir": [f1, empty],
        "empty_dir": [empty],
        "half_pair": [half],
        "half_pair_below": [below],
    }[layout]
    with pytest.raises(FixtureError, match=message):
        discover_pairs(paths)


def test_builtin_fixtures_are_discovered() -> None:
    assert "HTD102" in [p.name for p in discover_pairs([ROOT / "fixtures"])]


def test_builtin_fixtures_keep_the_contract() -> None:
    pytest.importorskip("torch", reason=NEEDS_TORCH)
    for pair in discover_pairs([ROOT / "fixtures"]):
        load_fixture(pair.before)
        load_fixture(pair.after)


# -- comparing outputs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "reason"),
    [
        ([1, (2.0, "a"), {"k": None}], [1, (2.0, "a"), {"k": None}], None),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, None),
        (float("nan"), float("nan"), None),
        ([1, 2, 3], [1, 2], "outputs differ: length 3 vs 2"),
        ([1, 2], (1, 2), "outputs differ: type list vs tuple"),
        ([1, 2.0], [1, 2], "outputs[1] differs: type float vs int"),
        ([True], [1], "outputs[0] differs: type bool vs int"),
        ([0, [1, {"a": 2}]], [0, [1, {"a": 3}]], "outputs[1][1]['a'] differs: 2 vs 3"),
        ({"a": 1}, {"b": 1}, "outputs differ: keys only in before: 'a'; only in after: 'b'"),
        (float("nan"), 1.0, "outputs differ: nan vs 1.0"),
        (
            object,
            object,
            "outputs: unsupported output type type (use tensors, scalars, lists, dicts)",
        ),
    ],
)
def test_compare_python_outputs(before: object, after: object, reason: str | None) -> None:
    assert compare_outputs(before, after) == reason


def test_compare_tensor_outputs() -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    a = torch.arange(6, dtype=torch.int64).reshape(2, 3)
    assert compare_outputs([a, {"x": a}], [a.clone(), {"x": a.clone()}]) is None
    assert (
        compare_outputs([a, a, a], [a, a, a.to(torch.int32)])
        == "outputs[2] differs: dtype int64 vs int32"
    )
    assert compare_outputs(a, a.reshape(3, 2)) == "outputs differ: shape (2, 3) vs (3, 2)"
    b = a.clone()
    b[1, 2] = 50
    assert compare_outputs(a, b) == (
        "outputs differ: values differ at 1 of 6 elements (first at [1, 2]: 5 vs 50)"
    )
    assert (
        compare_outputs(torch.tensor(1.0), torch.tensor(2.0)) == "outputs differ: value 1.0 vs 2.0"
    )
    nan = torch.tensor([1.0, math.nan])
    assert compare_outputs(nan, nan.clone()) is None
    assert compare_outputs(a, a.tolist()) == "outputs differ: type Tensor vs list"
    assert compare_outputs(a, a.t().contiguous().t()) is None  # strides are not compared


def test_snapshot_is_a_copy() -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.verify.compare import snapshot

    buffer = torch.zeros(4)
    taken = snapshot({"out": [buffer]})
    buffer.fill_(1.0)
    assert taken["out"][0].tolist() == [0.0, 0.0, 0.0, 0.0]


# -- verdicts --------------------------------------------------------------------------------------


def side(**overrides: object) -> SideMeasurement:
    values: dict[str, object] = {
        "path": "after.py",
        "memcpy": {PINNED_H2D: 1},
        "copies": [],
        "syncs": [],
        "sleep_ms": 40.0,
        "host_ms_under_sleep": 0.5,
        "host_ms": 0.3,
        "host_spread_ms": 0.02,
        "gpu_ms": 0.7,
        "gpu_spread_ms": 0.01,
        "repeats": 30,
    }
    values.update(overrides)
    return SideMeasurement(**values)  # type: ignore[arg-type]


def staged_copy(line: str = "before.py:27") -> CopyRecord:
    return CopyRecord("aten._to_copy", "HTD", 16 << 20, True, False, True, line)


BEFORE = side(
    path="before.py",
    memcpy={PAGEABLE_H2D: 1},
    copies=[staged_copy()],
    syncs=[SyncRecord(SYNC_STAGED, "before.py:27")],
    host_ms_under_sleep=42.2,
    host_ms=2.9,
    host_spread_ms=0.1,
    gpu_ms=3.0,
    gpu_spread_ms=0.05,
)
AFTER = side()


def test_the_fixed_copy_passes() -> None:
    assert judge(BEFORE, AFTER, equal_reason=None) == Verdict(True, [])


def test_pageable_copy_in_after_fails_with_its_line() -> None:
    after = side(memcpy={PAGEABLE_H2D: 2}, copies=[staged_copy("after.py:9")])
    (reason,) = judge(BEFORE, after, equal_reason=None).reasons
    assert reason == f"after makes 2 pageable H2D copies ({PAGEABLE_H2D}) at after.py:9"


def test_without_profiler_the_traced_copies_count() -> None:
    after = side(memcpy=None, copies=[staged_copy("after.py:9")])
    verdict = judge(BEFORE, after, equal_reason=None)
    assert verdict.reasons == [
        "after makes 1 pageable H2D copy (traced, source not pinned) at after.py:9"
    ]
    assert judge(BEFORE, side(memcpy=None), equal_reason=None).passed


def test_more_syncs_fail() -> None:
    after = side(syncs=[SyncRecord(SYNC_DEBUG, "after.py:3"), SyncRecord(SYNC_DEBUG, "after.py:3")])
    (reason,) = judge(BEFORE, after, equal_reason=None).reasons
    assert reason == "after has more syncs than before (2 > 1) at after.py:3"


def test_sync_rule_needs_strictly_fewer_syncs() -> None:
    per_row = side(
        path="before.py", syncs=[SyncRecord(SYNC_DEBUG, f"before.py:{i}") for i in (5, 5, 5)]
    )
    batched = side(syncs=[SyncRecord(SYNC_DEBUG, "after.py:6")])
    assert judge(per_row, batched, equal_reason=None, sync_rule=True).passed
    same = side(syncs=list(per_row.syncs))
    verdict = judge(per_row, same, equal_reason=None, sync_rule=True)
    assert verdict.reasons == [
        "after must sync less than before (SYNC_RULE): 3 syncs vs 3 at before.py:5"
    ]
    assert judge(per_row, same, equal_reason=None).passed  # without SYNC_RULE equal is fine


def test_blocking_fails_unless_the_workload_reads_on_the_host() -> None:
    after = side(host_ms_under_sleep=40.4, host_ms=0.3)
    (reason,) = judge(BEFORE, after, equal_reason=None).reasons
    assert reason.startswith("after blocks the host: 40.40 ms behind a 40.0 ms sleep kernel")
    assert "HOST_READ = True" in reason
    assert judge(BEFORE, after, equal_reason=None, host_read=True).passed


@pytest.mark.parametrize(
    ("under", "idle", "sleep", "expected"),
    [
        (42.2, 2.9, 40.0, True),
        (0.5, 0.3, 40.0, False),
        (20.3, 0.3, 40.0, True),
        (20.2, 0.3, 40.0, False),
    ],
)
def test_blocks_rule(under: float, idle: float, sleep: float, expected: bool) -> None:
    assert blocks(side(host_ms_under_sleep=under, host_ms=idle, sleep_ms=sleep)) is expected


def test_unequal_outputs_fail() -> None:
    verdict = judge(BEFORE, AFTER, equal_reason="outputs[2] differs: dtype int64 vs int32")
    assert verdict.reasons == ["outputs[2] differs: dtype int64 vs int32"]


def test_slower_beyond_the_spread_fails() -> None:
    slow_host = side(host_ms=3.2, host_spread_ms=0.1)
    (reason,) = judge(BEFORE, slow_host, equal_reason=None).reasons
    assert reason == "after is slower on the host: median 3.200 ms vs 2.900 ms (tolerance 0.100 ms)"
    slow_gpu = side(gpu_ms=3.2)
    (reason,) = judge(BEFORE, slow_gpu, equal_reason=None).reasons
    assert reason == "after is slower on the GPU: median 3.200 ms vs 3.000 ms (tolerance 0.050 ms)"


def test_slower_within_the_spread_or_floor_passes() -> None:
    assert judge(BEFORE, side(host_ms=2.99, host_spread_ms=0.01), equal_reason=None).passed
    assert judge(BEFORE, side(host_ms=3.05, host_spread_ms=0.2), equal_reason=None).passed
    tight = side(path="before.py", host_ms=1.0, host_spread_ms=0.0, gpu_ms=1.0, gpu_spread_ms=0.0)
    assert judge(
        tight, side(host_ms=1.04, host_spread_ms=0.0, gpu_ms=1.0), equal_reason=None
    ).passed
    assert not judge(
        tight, side(host_ms=1.06, host_spread_ms=0.0, gpu_ms=1.0), equal_reason=None
    ).passed
    assert tolerance(0.0, 0.0) == FLOOR_MS and tolerance(0.2, 0.1) == 0.2


def test_every_broken_condition_is_a_reason() -> None:
    bad = side(
        memcpy={PAGEABLE_H2D: 1},
        syncs=[SyncRecord(SYNC_DEBUG)] * 2,
        host_ms_under_sleep=45.0,
        host_ms=5.0,
        gpu_ms=5.0,
    )
    verdict = judge(BEFORE, bad, equal_reason="outputs differ: 1 vs 2")
    assert not verdict.passed
    assert len(verdict.reasons) == 6


def test_a_pair_that_could_not_be_measured_fails() -> None:
    failed = PairMeasurement(None, None, error="after.py: run() raised ValueError: no")
    assert judge_pair(failed, PairOptions()) == Verdict(
        False, ["after.py: run() raised ValueError: no"]
    )
    measured = PairMeasurement(BEFORE, AFTER)
    assert judge_pair(measured, PairOptions()).passed
    blocking = PairMeasurement(BEFORE, side(host_ms_under_sleep=40.4))
    assert not judge_pair(blocking, PairOptions()).passed
    assert judge_pair(blocking, PairOptions(host_read=True)).passed


def test_median_and_spread() -> None:
    assert median_and_spread([]) == (0.0, 0.0)
    assert median_and_spread([2.0]) == (2.0, 0.0)
    assert median_and_spread([1.0, 2.0, 3.0, 4.0, 100.0]) == (3.0, 2.0)


def test_memcpy_counts_keep_memcpy_kinds_only() -> None:
    names = [
        PAGEABLE_H2D,
        "cudaMemcpyAsync",
        PAGEABLE_H2D,
        "aten::copy_",
        "Memcpy DtoH (Device -> Pinned)",
    ]
    assert memcpy_counts(names) == {"Memcpy DtoH (Device -> Pinned)": 1, PAGEABLE_H2D: 2}
    assert side(memcpy={PAGEABLE_H2D: 2, "Memcpy DtoH (Device -> Pageable)": 1}).d2h == 1
    assert side(memcpy=None).h2d_pageable is None


# -- the report ------------------------------------------------------------------------------------

ENVIRONMENT = {"torch": "2.11.0", "device_name": "NVIDIA H200", "min_sleep_ms": 40.0}


def outcomes() -> list[PairOutcome]:
    good = PairMeasurement(BEFORE, AFTER)
    bad = PairMeasurement(BEFORE, side(memcpy=None, copies=[staged_copy("after.py:4")]))
    broken = PairMeasurement(None, None, error="before.py: setup() raised OSError: x")
    return [
        PairOutcome(
            FixturePair(name, Path("b.py"), Path("a.py")),
            PairOptions(),
            m,
            judge_pair(m, PairOptions()),
        )
        for name, m in (("HTD102", good), ("mine", bad), ("broken", broken))
    ]


def test_text_report() -> None:
    text = render_text(outcomes(), ENVIRONMENT)
    lines = text.splitlines()
    assert lines[0].split("  ")[0] == "fixture"
    for column in ("H2D pageable", "H2D pinned", "syncs", "host ms under sleep", "GPU ms", "equal"):
        assert column in lines[0]
    before_row = next(line for line in lines if line.startswith("HTD102") and "before" in line)
    after_row = next(line for line in lines if line.startswith("HTD102") and "after" in line)
    assert "42.20 blocks" in before_row and "2.900 ±0.100" in before_row
    assert after_row.split()[-2:] == ["yes", "PASS"]
    assert "1*" in next(line for line in lines if line.startswith("mine") and "after" in line)
    assert (
        "FAIL mine: after makes 1 pageable H2D copy (traced, source not pinned) at after.py:4"
        in lines
    )
    assert "FAIL broken: before.py: setup() raised OSError: x" in lines
    assert any(line.startswith("* the profiler recorded no memcpy") for line in lines)
    assert (
        lines[-1]
        == "3 pairs: 1 passed, 2 failed (NVIDIA H200, torch 2.11.0, sleep kernel >= 40 ms)"
    )


def test_json_report() -> None:
    document = json.loads(render_json(outcomes(), ENVIRONMENT))
    assert document["version"] == 1
    assert document["summary"] == {"pairs": 3, "passed": 1, "failed": 2}
    assert document["environment"] == ENVIRONMENT
    good, bad, broken = document["pairs"]
    assert good["fixture"] == "HTD102" and good["equal"] is True
    assert good["verdict"] == {"passed": True, "reasons": []}
    assert good["before"]["h2d_pageable"] == 1 and good["before"]["syncs"] == 1
    assert good["before"]["blocks"] is True and good["after"]["blocks"] is False
    assert good["before"]["sync_events"] == [
        {"source": SYNC_STAGED, "line": "before.py:27", "detail": ""}
    ]
    assert good["before"]["copies"][0]["non_blocking"] is True
    assert set(good["after"]) >= {
        "path", "memcpy", "h2d_pinned", "d2h", "traced_h2d_staged", "sleep_ms",
        "host_ms_under_sleep", "host_ms", "host_spread_ms", "gpu_ms", "gpu_spread_ms", "repeats",
    }  # fmt: skip
    assert bad["after"]["h2d_pageable"] is None and bad["after"]["traced_h2d_staged"] == 1
    assert broken["before"] is None and broken["equal"] is None
    assert broken["verdict"]["passed"] is False


# -- the measurement parts that run on the CPU ---------------------------------------------------


def test_sync_warnings_are_recorded_at_the_fixture_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "syncs.py",
        f"""\
        import warnings

        def setup(device):
            return None

        def run(state):
            warnings.warn("{SYNC_WARNING} (Triggered internally)")
            warnings.warn("something else")
        """,
    )
    fixture = load_fixture(path)
    syncs: list[SyncRecord] = []
    with warnings.catch_warnings(record=True) as outside:
        warnings.simplefilter("always")
        with sync_warnings(str(path.resolve()), syncs):
            fixture.run(None)
    assert [(s.source, s.line) for s in syncs] == [(SYNC_DEBUG, "syncs.py:7")]
    assert not outside


def test_copy_recorder_traces_host_to_device_copies(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.verify.recorders import copy_recorder

    path = write(
        tmp_path / "copies.py",
        """\
        import torch

        def setup(device):
            return {"device": device, "x": torch.arange(12).reshape(3, 4)}

        def run(state):
            x, device = state["x"], state["device"]
            a = x.to(device, non_blocking=True)
            b = torch.empty(3, 2, device=device).copy_(x[:, :2], non_blocking=True)
            c = x.to(torch.float32)
            d = x.cuda() if device.type == "cuda" else x.to(device)
            return a, b, c, d
        """,
    )
    fixture = load_fixture(path)
    state = fixture.setup(torch.device("meta"))  # a non-CPU device that needs no GPU
    copies: list[CopyRecord] = []
    syncs: list[SyncRecord] = []
    with copy_recorder(str(path.resolve()), copies, syncs):
        fixture.run(state)
    assert [
        (c.op, c.direction, c.non_blocking, c.host_pinned, c.host_dense, c.line) for c in copies
    ] == [
        ("aten._to_copy", "HTD", True, False, True, "copies.py:8"),
        ("aten.copy_", "HTD", True, False, False, "copies.py:9"),
        ("aten._to_copy", "HTD", False, False, True, "copies.py:11"),
    ]
    assert copies[0].nbytes == 12 * 8
    assert [(s.source, s.line) for s in syncs] == [
        (SYNC_STAGED, "copies.py:8"),
        (SYNC_STAGED, "copies.py:9"),
    ]


# -- the HTD102 fixtures on the CPU ----------------------------------------------------------------


def test_h2d002_fixtures_give_equal_outputs_on_the_cpu() -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.verify.fixtures import run_fixture_on_cpu

    before = run_fixture_on_cpu(HTD102 / "before.py")
    after = run_fixture_on_cpu(HTD102 / "after.py")
    assert compare_outputs(before, after) is None
    assert before.dtype == torch.int64 and before.nbytes >= 8 << 20  # big enough to block
    assert before.device.type == "cpu"


def docs_example(root: Path) -> Path:
    """The worked example of docs/verify.md, written out as a fixture pair under ``root``."""
    text = (ROOT / "docs" / "verify.md").read_text(encoding="utf-8")
    for side in ("before", "after"):
        block = text.split(f"`patches/{side}.py`:\n\n```python\n", 1)[1].split("```", 1)[0]
        write(root / "patches" / f"{side}.py", block)
    return root / "patches"


def test_docs_example_keeps_the_contract_and_agrees_on_the_cpu(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.verify.fixtures import run_fixture_on_cpu

    pair = docs_example(tmp_path)
    before, after = load_fixture(pair / "before.py"), load_fixture(pair / "after.py")
    assert pair_options(before, after) == PairOptions(host_read=True, sync_rule=True)
    outputs = run_fixture_on_cpu(pair / "before.py")
    assert compare_outputs(outputs, run_fixture_on_cpu(pair / "after.py")) is None
    assert len(outputs) == 16 and all(type(x) is int for x in outputs)


def test_h2d002_before_is_flagged_and_after_is_clean() -> None:
    flagged = CliRunner().invoke(
        main, ["check", "--no-cache", "--select", "HTD102", str(HTD102 / "before.py")]
    )
    assert flagged.exit_code == 1 and "HTD102" in flagged.output
    clean = CliRunner().invoke(
        main, ["check", "--no-cache", "--select", "HTD102", str(HTD102 / "after.py")]
    )
    assert clean.exit_code == 0, clean.output


# -- the command and its exit codes ----------------------------------------------------------------


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert verify([]).exit_code == 2
    missing = verify([str(tmp_path / "nope")])
    assert missing.exit_code == 2
    assert "no such file or directory" in missing.stderr
    assert "Traceback" not in missing.output
    one = verify([str(write(tmp_path / "one.py", PLAIN))])
    assert one.exit_code == 2 and "exactly two fixture files" in one.stderr
    assert verify(["--repeats", "0", str(tmp_path)]).exit_code == 2
    assert verify(["--output-format", "xml", str(tmp_path)]).exit_code == 2


def test_bad_fixture_exits_2_before_looking_for_cuda(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason=NEEDS_TORCH)
    pair = make_pair(tmp_path / "case", after="def setup(device):\n    return 1\n")
    result = verify([str(pair)])
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("fixture has no `run(state)` function")
    assert str(pair / "after.py") in result.stderr
    assert "Traceback" not in result.output
    broken = make_pair(tmp_path / "syntax", after="def run(:\n")
    result = verify([str(broken)])
    assert result.exit_code == 2 and "syntax error in fixture" in result.stderr


def test_a_non_cuda_device_is_a_usage_error(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason=NEEDS_TORCH)
    for device in ("cpu", "not-a-device"):
        result = verify(["--device", device, str(make_pair(tmp_path / "case"))])
        assert result.exit_code == 2, device
        assert "--device" in result.stderr


def test_no_cuda_exits_3_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    result = verify([str(make_pair(tmp_path / "case"))])
    assert result.exit_code == 3
    assert result.stdout == ""
    assert result.stderr == command.NO_CUDA_MESSAGE + "\n"
    assert result.stderr.startswith(
        "h2dlint verify: no CUDA device available (torch.cuda.is_available() is False); "
        "verify needs an NVIDIA GPU"
    )


def test_no_cuda_here_exits_3_end_to_end() -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    proc = subprocess.run(
        [sys.executable, "-m", "h2dlint", "verify", str(ROOT / "fixtures")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 3
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines()[-1] == command.NO_CUDA_MESSAGE


def test_without_torch_exits_3_and_says_how_to_install(tmp_path: Path) -> None:
    pair = make_pair(tmp_path / "case")
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # import torch now raises ImportError\n"
        "from h2dlint.cli import main\n"
        f"main(['verify', {str(pair)!r}])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 3
    assert proc.stderr == command.NO_TORCH_MESSAGE + "\n"
    assert "install a CUDA build of torch" in proc.stderr
    assert "h2dlint[verify]" not in proc.stderr  # no such release to install


def test_paths_are_checked_before_torch_is_needed(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "sys.modules['torch'] = None\n"
        "from h2dlint.cli import main\n"
        f"main(['verify', {str(tmp_path / 'nope')!r}])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 2 and "no such file or directory" in proc.stderr


def test_verify_help_imports_neither_torch_nor_libcst() -> None:
    code = (
        "import sys\n"
        "from h2dlint.cli import main\n"
        "try:\n"
        "    main(['verify', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('libcst' in sys.modules, 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "--output-format" in out.stdout
    assert out.stdout.splitlines()[-1] == "False False"


# -- the harness's control flow, with CUDA faked on the meta device --------------------------------


@pytest.fixture
def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> object:
    """torch.cuda's calls that the harness makes, as no-ops: enough to run its control flow on
    the CPU with the meta device standing in for the GPU. Measures nothing real."""
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)

    class FakeEvent:
        pending = False  # set True on an instance to make synchronize() a wait

        def __init__(self, enable_timing: bool = False) -> None:
            pass

        def record(self, stream: object = None) -> None:
            pass

        def elapsed_time(self, other: object) -> float:
            return 1.0

        def query(self) -> bool:
            return not self.pending

        def synchronize(self) -> None:
            pass

    def noop() -> object:
        return lambda *args, **kwargs: None  # a new function each: dynamo must not see duplicates

    importlib.import_module("torch._dynamo")  # before torch.cuda is patched: it inspects it

    fakes = {
        "set_device": noop(),
        "synchronize": noop(),
        "Event": FakeEvent,
        "_sleep": noop(),
        "get_sync_debug_mode": lambda: 0,
        "set_sync_debug_mode": noop(),
        "empty_cache": noop(),
        "get_device_name": lambda device=None: "Fake GPU",
    }
    for name, value in fakes.items():
        monkeypatch.setattr(torch.cuda, name, value, raising=False)
    return FakeEvent


FAKE_BEFORE = """\
import torch

def setup(device):
    return {"device": device, "x": torch.arange(1024)}

def run(state):
    device = state["device"]
    state["x"].to(device, non_blocking=True)
    return state["x"] * 2
"""

FAKE_AFTER = """\
import torch

def setup(device):
    return {"device": device, "x": torch.arange(1024), "done": torch.cuda.Event()}

def run(state):
    state["done"].synchronize()
    state["x"].to(state["device"])
    return state["x"] * 2
"""


@pytest.mark.filterwarnings("ignore:CUDA is not available")
def test_harness_control_flow_with_faked_cuda(tmp_path: Path, fake_cuda: object) -> None:
    from h2dlint.verify.measure import Harness
    from h2dlint.verify.records import SYNC_EVENT

    pair = make_pair(tmp_path / "case", FAKE_BEFORE, FAKE_AFTER)
    harness = Harness("meta").start()
    assert harness.cycles_per_ms > 0
    assert harness.environment()["device_name"] == "Fake GPU"
    before, after = load_fixture(pair / "before.py"), load_fixture(pair / "after.py")
    measured = harness.measure_pair(before, after, repeats=4)
    assert measured.error is None and measured.equal_reason is None
    assert measured.before is not None and measured.after is not None
    b, a = measured.before, measured.after
    assert b.repeats == a.repeats == 4
    assert b.sleep_ms == 1.0 and b.gpu_ms == 1.0 and b.gpu_spread_ms == 0.0
    assert [(c.direction, c.non_blocking, c.staged, c.line) for c in b.copies] == [
        ("HTD", True, True, "before.py:8")
    ]
    assert [(s.source, s.line) for s in b.syncs] == [(SYNC_STAGED, "before.py:8")]
    assert [(c.non_blocking, c.line) for c in a.copies] == [(False, "after.py:8")]
    assert a.syncs == []  # a blocking copy is the debug mode's to report; faked here
    reasons = judge_pair(measured, PairOptions()).reasons  # no profiler: the traced count
    assert "after makes 1 pageable H2D copy (traced, source not pinned) at after.py:8" in reasons

    fake_cuda.pending = True  # type: ignore[attr-defined]
    waited = harness.measure_pair(before, after, repeats=2)
    assert waited.after is not None
    assert [(s.source, s.line) for s in waited.after.syncs] == [(SYNC_EVENT, "after.py:7")]


@pytest.mark.filterwarnings("ignore:CUDA is not available")
def test_harness_reports_a_failing_run_as_the_pairs_error(
    tmp_path: Path, fake_cuda: object
) -> None:
    from h2dlint.verify.measure import Harness

    pair = make_pair(tmp_path / "case", FAKE_BEFORE, FAKE_AFTER.replace('state["x"] * 2', "1 / 0"))
    harness = Harness("meta").start()
    measured = harness.measure_pair(
        load_fixture(pair / "before.py"), load_fixture(pair / "after.py"), 2
    )
    assert measured.before is None
    assert (
        measured.error == f"{pair / 'after.py'}: run() raised ZeroDivisionError: division by zero"
    )
    assert not judge_pair(measured, PairOptions()).passed


# -- race pairs ------------------------------------------------------------------------------------
RACE_BEFORE = side(path="before.py", host_ms=0.2, gpu_ms=5.1, host_ms_under_sleep=0.3)
RACE_AFTER = side(
    syncs=[SyncRecord("event.synchronize()", "after.py:50")],
    host_ms=5.2,
    gpu_ms=5.1,
    host_ms_under_sleep=45.0,
)


def race(**overrides: object) -> PairMeasurement:
    values: dict[str, object] = {
        "before": RACE_BEFORE,
        "after": RACE_AFTER,
        "equal_reason": "outputs[0] differs: 3 vs 4",
        "race": True,
        "before_wrong": "outputs[0] differs: 3 vs 4",
        "after_wrong": None,
    }
    values.update(overrides)
    return PairMeasurement(**values)  # type: ignore[arg-type]


def test_a_race_pair_passes_when_before_is_wrong_and_after_right() -> None:
    # More syncs, blocking under the sleep and unequal outputs are what the fix is.
    assert judge_pair(race(), PairOptions(race=True)) == Verdict(True, [])
    assert "the race detected" in (race_shown(race()) or "")


def test_a_race_pair_fails_when_after_is_wrong() -> None:
    verdict = judge_pair(race(after_wrong="outputs[0] differs: 3 vs 4"), PairOptions(race=True))
    assert not verdict.passed
    assert verdict.reasons == [
        "after gives a wrong result (after's value first, the expected second): "
        "outputs[0] differs: 3 vs 4"
    ]


def test_a_race_pair_fails_when_the_race_did_not_show() -> None:
    verdict = judge_pair(race(before_wrong=None), PairOptions(race=True))
    assert not verdict.passed
    assert verdict.reasons[0].startswith("before gave the expected outputs: the race did not show")
    assert race_shown(race(before_wrong=None)) is None


def test_a_race_pair_fails_when_after_holds_the_host_longer_than_needed() -> None:
    slow = side(host_ms=9.0, gpu_ms=5.1)
    verdict = judge_pair(race(after=slow), PairOptions(race=True))
    assert verdict.reasons == [
        "after holds the host longer than the device's work needs: median 9.000 ms vs at most "
        "5.300 ms (tolerance 0.050 ms)"
    ]


def test_race_pair_in_the_reports() -> None:
    outcome = PairOutcome(
        FixturePair("HTD402", Path("before.py"), Path("after.py")),
        PairOptions(race=True),
        race(),
        judge_pair(race(), PairOptions(race=True)),
    )
    lines = render_text([outcome], ENVIRONMENT).splitlines()
    before_row = next(line for line in lines if line.startswith("HTD402") and "before" in line)
    after_row = next(line for line in lines if line.startswith("HTD402") and "after" in line)
    assert before_row.split()[-1] == "WRONG"
    assert after_row.split()[-2:] == ["expected", "PASS"]
    assert any(line.startswith("RACE HTD402: before gives a wrong result") for line in lines)
    pair = json.loads(render_json([outcome], ENVIRONMENT))["pairs"][0]
    assert pair["kind"] == "race" and pair["after_wrong"] is None
    assert pair["before_wrong"] == "outputs[0] differs: 3 vs 4"
    assert pair["race_detected"].startswith("before gives a wrong result")


def test_expected_makes_a_race_pair(tmp_path: Path) -> None:
    before = tmp_path / "before.py"
    after = tmp_path / "after.py"
    before.write_text(
        "def setup(device):\n    return 1\ndef run(state):\n    return state\n", encoding="utf-8"
    )
    after.write_text(
        "def setup(device):\n    return 1\ndef run(state):\n    return state\n"
        "def expected(state):\n    return 1\n",
        encoding="utf-8",
    )
    b, a = load_fixture(before), load_fixture(after)
    assert b.expected is None and a.expected is not None and a.expected(1) == 1
    assert pair_options(b, a).race
    assert not pair_options(b, b).race
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def setup(device):\n    return 1\ndef run(state):\n    return state\n"
        "def expected():\n    return 1\n",
        encoding="utf-8",
    )
    with pytest.raises(FixtureError, match="`expected` must take exactly one argument"):
        load_fixture(bad)


def test_a_race_fix_may_let_the_device_wait_for_host_work_but_no_more() -> None:
    """A correct after side can be slower on the GPU than the racy before side (the device
    waits for host writes that before made too early); up to before's host time, no more."""
    from h2dlint.verify.verdict import race_reasons

    racy = side(path="before.py", host_ms=0.8, gpu_ms=5.7, gpu_spread_ms=0.03)

    def pair(after_gpu: float) -> PairMeasurement:
        waits = side(gpu_ms=after_gpu, gpu_spread_ms=0.03, host_ms=after_gpu, host_spread_ms=0.1)
        return PairMeasurement(racy, waits, race=True, before_wrong="outputs differ")

    assert race_reasons(pair(6.4)) == []
    (reason,) = race_reasons(pair(7.2))
    assert reason.startswith("after is slower on the GPU than waiting needs: median 7.200 ms")

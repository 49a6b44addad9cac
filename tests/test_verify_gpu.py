"""``h2dlint verify`` on a real CUDA GPU: the built-in fixtures pass end to end, and the
measurements see what the ground truth says they should (a pageable copy and its hidden sync, a
debug-mode sync, an event wait, host blocking). Skipped without CUDA."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_verify import docs_example, make_pair

from h2dlint.cli import main

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch", reason="needs torch with CUDA (pip install '.[verify]')")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from h2dlint.verify.fixtures import PairOptions, load_fixture  # noqa: E402
from h2dlint.verify.measure import Harness  # noqa: E402
from h2dlint.verify.records import (  # noqa: E402
    PAGEABLE_H2D,
    PINNED_H2D,
    SYNC_DEBUG,
    SYNC_EVENT,
    SYNC_STAGED,
    PairMeasurement,
)
from h2dlint.verify.verdict import blocks, judge_pair  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

PAGEABLE = """\
import torch

def setup(device):
    return {"device": device, "x": torch.arange(2 * 1024 * 1024, dtype=torch.int64)}

def run(state):
    device = state["device"]
    return state["x"].to(device, non_blocking=True)
"""

PINNED = """\
import torch

def setup(device):
    x = torch.arange(2 * 1024 * 1024, dtype=torch.int64)
    return {"device": device, "x": x.pin_memory()}

def run(state):
    device = state["device"]
    return state["x"].to(device, non_blocking=True)
"""

ITEM = """\
import torch

HOST_READ = True

def setup(device):
    return {"x": torch.arange(1024, device=device)}

def run(state):
    return state["x"].sum().item()
"""

EVENT_WAIT = """\
import torch

HOST_READ = True

def setup(device):
    return {"x": torch.arange(1024, device=device)}

def run(state):
    torch.cuda._sleep(2_000_000)
    done = torch.cuda.Event()
    done.record()
    done.synchronize()
    return 1
"""


@pytest.fixture(scope="module")
def harness() -> Harness:
    return Harness("cuda").start()


def measure(harness: Harness, root: Path, before: str, after: str) -> PairMeasurement:
    pair = make_pair(root, before, after)
    return harness.measure_pair(
        load_fixture(pair / "before.py"), load_fixture(pair / "after.py"), 10
    )


def lines(records: list[Any]) -> set[str | None]:
    return {record.line for record in records}


def test_builtin_fixtures_pass_end_to_end() -> None:
    result = CliRunner().invoke(main, ["verify", str(ROOT / "fixtures"), "--output-format", "json"])
    document = json.loads(result.stdout)
    reasons = {p["fixture"]: p["verdict"]["reasons"] for p in document["pairs"]}
    assert result.exit_code == 0, reasons
    htd102 = next(p for p in document["pairs"] if p["fixture"] == "HTD102")
    assert htd102["before"]["blocks"] is True
    assert htd102["after"]["blocks"] is False
    assert htd102["before"]["h2d_pageable"] in (1, None)
    assert htd102["after"]["h2d_pageable"] in (0, None)


def test_text_report_end_to_end() -> None:
    result = CliRunner().invoke(
        main, ["verify", str(ROOT / "fixtures" / "HTD102"), "--repeats", "5"]
    )
    assert result.exit_code == 0, result.output
    assert "PASS" in result.stdout


def test_pageable_copy_its_hidden_sync_and_blocking(harness: Harness, tmp_path: Path) -> None:
    measured = measure(harness, tmp_path, PAGEABLE, PINNED)
    assert measured.error is None and measured.equal_reason is None
    before, after = measured.before, measured.after
    assert before is not None and after is not None
    if harness.profiler_ok:
        assert before.memcpy is not None and before.memcpy.get(PAGEABLE_H2D) == 1
        assert after.memcpy is not None and after.memcpy.get(PINNED_H2D) == 1
        assert after.h2d_pageable == 0
    (copy,) = before.copies
    assert (copy.direction, copy.non_blocking, copy.host_pinned, copy.line) == (
        "HTD",
        True,
        False,
        "before.py:8",
    )
    assert [(s.source, s.line) for s in before.syncs] == [(SYNC_STAGED, "before.py:8")]
    assert after.copies[0].host_pinned and after.syncs == []
    assert blocks(before), before
    assert not blocks(after), after
    assert judge_pair(measured, PairOptions()).passed


def test_swapped_pair_fails(harness: Harness, tmp_path: Path) -> None:
    measured = measure(harness, tmp_path, PINNED, PAGEABLE)
    verdict = judge_pair(measured, PairOptions())
    assert not verdict.passed
    assert any("pageable H2D" in reason for reason in verdict.reasons), verdict.reasons
    assert any("blocks the host" in reason for reason in verdict.reasons), verdict.reasons


def test_item_is_a_debug_mode_sync_that_blocks(harness: Harness, tmp_path: Path) -> None:
    measured = measure(harness, tmp_path, ITEM, ITEM)
    before = measured.before
    assert before is not None
    assert [(s.source, s.line) for s in before.syncs] == [(SYNC_DEBUG, "before.py:9")]
    assert blocks(before)
    if harness.profiler_ok:
        assert before.d2h == 1


def test_event_wait_is_a_sync(harness: Harness, tmp_path: Path) -> None:
    measured = measure(harness, tmp_path, EVENT_WAIT, EVENT_WAIT)
    before = measured.before
    assert before is not None
    assert (SYNC_EVENT, "before.py:12") in [(s.source, s.line) for s in before.syncs]


def test_docs_example_passes(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["verify", str(docs_example(tmp_path)), "--repeats", "10"])
    assert result.exit_code == 0, result.output

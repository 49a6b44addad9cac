"""``h2dlint trace`` on a real CUDA GPU: copy kinds, whether copies ran asynchronously, host time
lost to syncs, and the command end to end on the example. Skipped without CUDA."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch", reason="needs torch with CUDA (pip install '.[verify]')")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from h2dlint.trace import trace  # noqa: E402
from h2dlint.trace.events import EXPLICIT, H2D, SCALAR, SYNC, TO_HOST, EventGroup  # noqa: E402
from h2dlint.verify.sleep_kernel import cycles_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MIB = 1 << 20
SLEEP_MS = 60.0


SLEEP_CYCLES = cycles_for(torch, SLEEP_MS)


def traced(fn: Any) -> list[EventGroup]:
    torch.cuda.synchronize()
    with trace(report=False, lint=False) as session:
        fn()
        torch.cuda._sleep(1000)
    torch.cuda.synchronize()
    assert session.data is not None
    return [g for g in session.data.groups if not g.explicit]


def only(groups: list[EventGroup], kind: str) -> EventGroup:
    found = [g for g in groups if g.kind == kind]
    assert len(found) == 1, found
    return found[0]


def test_pageable_non_blocking_copy_is_staged() -> None:
    x = torch.ones(16 * MIB // 4)
    group = only(traced(lambda: x.to("cuda", non_blocking=True)), H2D)
    assert (group.memory, group.non_blocking, group.staged, group.nbytes) == (
        "pageable",
        True,
        True,
        16 * MIB,
    )


def test_pinned_copy_behind_a_busy_stream_runs_async() -> None:
    x = torch.ones(4 * MIB // 4).pin_memory()

    def run() -> None:
        torch.cuda._sleep(SLEEP_CYCLES)
        x.to("cuda", non_blocking=True)

    group = only(traced(run), H2D)
    assert (group.memory, group.ran_async, group.waited) == ("pinned", 1, 0)


def test_pageable_copy_behind_a_busy_stream_waits() -> None:
    x = torch.ones(16 * MIB // 4)

    def run() -> None:
        torch.cuda._sleep(SLEEP_CYCLES)
        x.to("cuda", non_blocking=True)

    group = only(traced(run), H2D)
    assert group.waited == 1 and group.ran_async == 0
    assert group.host_ms > 5.0


def test_strided_view_of_a_pinned_buffer() -> None:
    cpu = torch.zeros(3, 1 << 16, dtype=torch.int64).pin_memory()
    gpu = torch.zeros(3, 1 << 16, dtype=torch.int64, device="cuda")
    group = only(traced(lambda: gpu[:, :1000].copy_(cpu[:, :1000], non_blocking=True)), H2D)
    assert group.memory == "pinned-strided" and group.staged


def test_item_behind_a_busy_stream_loses_host_time() -> None:
    x = torch.ones(4, device="cuda")

    x.sum().item()  # the first sum and item outside the trace: no first-call costs inside it

    def run() -> None:
        y = x.sum()
        torch.cuda._sleep(SLEEP_CYCLES)  # queued after the sum: item() waits for the sleep
        y.item()

    group = only(traced(run), SYNC)
    assert (group.what, group.reason, group.count) == (".item()", SCALAR, 1)
    assert group.host_ms > SLEEP_MS / 3


def test_tolist_and_cpu_are_one_sync_each() -> None:
    x = torch.arange(8, device="cuda")
    groups = traced(lambda: (x.tolist(), x.cpu()))
    syncs = sorted((g.what, g.reason, g.count) for g in groups if g.kind == SYNC)
    assert syncs == [(".cpu()", TO_HOST, 1), (".tolist()", TO_HOST, 1)]


def test_non_blocking_copy_to_pinned_host_memory_is_no_sync() -> None:
    x = torch.arange(8, device="cuda")
    out = torch.empty(8, dtype=torch.int64).pin_memory()
    assert traced(lambda: out.copy_(x, non_blocking=True)) == []


def test_tensor_from_python_data_on_the_device_is_one_copy() -> None:
    group = only(traced(lambda: torch.tensor([1, 2, 3], device="cuda")), H2D)
    assert (group.count, group.memory, group.non_blocking, group.waited) == (
        1,
        "pageable",
        False,
        1,
    )


def test_data_dependent_shapes_and_explicit_syncs() -> None:
    x = torch.arange(10, device="cuda")
    torch.cuda.synchronize()
    with trace(report=False, lint=False) as session:
        x[x > 3]
        torch.nonzero(x)
        torch.repeat_interleave(x, x, output_size=45)
        torch.cuda.synchronize()
    assert session.data is not None
    kinds = sorted((g.what, g.reason) for g in session.data.groups)
    assert kinds == [
        ("t[...]", "data-dependent shape"),
        ("torch.cuda.synchronize()", EXPLICIT),
        ("torch.nonzero()", "data-dependent shape"),
    ]


def test_trace_command_on_the_example(tmp_path: Path) -> None:
    output = tmp_path / "example.json"
    serve = "examples/trace_serving/serve.py"
    command = [sys.executable, "-m", "h2dlint", "trace", "-q", "-o", str(output), "--"]
    done = subprocess.run(
        [*command, "python", serve, "--steps", "2", "--warmup", "1"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("steps: 2, median step:")
    report = json.loads(output.read_text())
    statuses = {(f["code"], f["status"]) for f in report["join"]["findings"]}
    for code in ("HTD101", "HTD103", "HTD104", "HTD106", "HTD201"):
        assert (code, "confirmed") in statuses, statuses

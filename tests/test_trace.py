"""``h2dlint trace`` on the CPU: the recorder and its async verdicts, the join, the reports, the
program runner and exit codes, ``check --trace``. The interception itself runs here with "meta"
standing for the device (copies to it are host-to-device copies) and CPU tensors counted as device
tensors (their ``.item()`` is a sync); the CUDA end is in test_trace_gpu.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from h2dlint.cli import main
from h2dlint.diagnostics import Finding, Location
from h2dlint.trace import command as trace_command
from h2dlint.trace.events import (
    EXPLICIT,
    H2D,
    SCALAR,
    SYNC,
    EventGroup,
    Frame,
    TraceData,
    TraceFileError,
    document,
    load_trace,
)
from h2dlint.trace.join import (
    CONFIRMED,
    CONTRADICTED,
    NOT_MEASURABLE,
    NOT_REACHED,
    join,
    join_json,
)
from h2dlint.trace.marks import mark_findings, only_confirmed
from h2dlint.trace.program import Program, UsageError, exit_code, parse
from h2dlint.trace.recorder import ASYNC, UNKNOWN, WAITED, Recorder, async_outcome
from h2dlint.trace.report import format_for, render_json, render_sarif, render_text

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
TRACE_DATA = DATA / "trace"
RECORDED = TRACE_DATA / "serve.trace.json"
PROJECT = TRACE_DATA / "project"
NEEDS_TORCH = "needs torch (pip install '.[verify]')"


def finding(path: str, code: str, row: int, end_row: int | None = None) -> Finding:
    return Finding(path, code, f"{code} message", Location(row, 1), Location(end_row or row, 9))


def frame(file: str, line: int, function: str = "f") -> Frame:
    return Frame(file, line, function)


def h2d(stack: tuple[Frame, ...], **fields: object) -> EventGroup:
    group = EventGroup(H2D, ".to()", "aten._to_copy", stack, count=1, host_ms=1.0)
    for name, value in fields.items():
        setattr(group, name, value)
    return group


def sync(stack: tuple[Frame, ...], reason: str = SCALAR, **fields: object) -> EventGroup:
    group = EventGroup(SYNC, ".item()", "aten._local_scalar_dense", stack, reason, 1, 2.0)
    for name, value in fields.items():
        setattr(group, name, value)
    return group


# -- the recorder --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("non_blocking", "pending", "done_after", "outcome"),
    [
        (False, None, None, WAITED),  # a blocking copy waits by design
        (False, True, False, WAITED),
        (True, True, False, ASYNC),  # returned while the work before it still ran
        (True, True, True, WAITED),  # that work finished during the call: the host waited
        (True, False, None, UNKNOWN),  # nothing queued before: nothing to wait for, no telling
        (True, None, None, UNKNOWN),  # the stream cannot be asked
        (True, True, None, UNKNOWN),
    ],
)
def test_async_outcome(non_blocking, pending, done_after, outcome) -> None:
    assert async_outcome(non_blocking, pending, done_after) == outcome


def test_recorder_groups_copies_and_counts_outcomes() -> None:
    rec = Recorder()
    site = (frame("/p/a.py", 3),)
    rec.copy(site, ".to()", "aten._to_copy", 100, True, True, True, 0.5, ASYNC)
    rec.copy(site, ".to()", "aten._to_copy", 300, True, True, True, 1.5, WAITED)
    rec.copy(site, ".to()", "aten._to_copy", 100, True, False, True, 0.1, UNKNOWN)
    rec.sync(site, ".item()", "aten._local_scalar_dense", SCALAR, 2.0)
    rec.copy((), ".to()", "aten._to_copy", 1, False, False, True, 0.1, WAITED)  # no user frame
    groups = {(g.kind, g.pinned): g for g in rec.groups()}
    pinned = groups[(H2D, True)]
    assert (pinned.count, pinned.nbytes, pinned.ran_async, pinned.waited) == (2, 400, 1, 1)
    assert pinned.host_ms == pytest.approx(2.0) and pinned.max_ms == pytest.approx(1.5)
    assert pinned.memory == "pinned" and not pinned.staged
    assert groups[(H2D, False)].memory == "pageable" and groups[(H2D, False)].unknown == 1
    assert groups[(SYNC, False)].synced == 1
    assert len(rec.groups()) == 3


def test_bursts_need_enough_copies_close_together() -> None:
    rec = Recorder(burst_min=4, burst_gap_ops=5)
    loop, other = frame("/p/a.py", 3), frame("/p/a.py", 9)
    for _ in range(6):  # a per-item loop: one op (the copy) between copies
        rec.ops += 1
        rec.copy((loop,), ".to()", "op", 10, False, False, True, 0.1, WAITED)
    rec.ops += 50  # a model step
    for _ in range(3):  # too few for a burst
        rec.ops += 1
        rec.copy((loop,), ".to()", "op", 10, False, False, True, 0.1, WAITED)
    for _ in range(5):  # one copy per step, steps far apart: never a burst
        rec.ops += 40
        rec.copy((other,), ".to()", "op", 10, False, False, True, 0.1, WAITED)
    bursts = rec.bursts()
    assert [(b.site, b.bursts, b.copies, b.largest, b.nbytes) for b in bursts] == [
        (loop, 1, 6, 6, 60)
    ]


# -- the interception, on the CPU ----------------------------------------------------------------
def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def run_traced(tmp_path: Path, source: str, device_types: tuple[str, ...], **session: object):
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.trace.session import Session

    path = write(tmp_path / "prog.py", source)
    namespace: dict[str, object] = {"__name__": "prog"}
    code = compile(path.read_text(), str(path), "exec")
    traced = Session(torch, root=tmp_path, device_types=device_types, lines=False, **session)
    traced.start()
    try:
        exec(code, namespace)
    finally:
        data = traced.stop()
    return data


def by_line(data: TraceData) -> dict[int, list[EventGroup]]:
    found: dict[int, list[EventGroup]] = {}
    for group in data.groups:
        found.setdefault(group.site.line, []).append(group)
    return found


def test_intercepts_host_to_device_copies(tmp_path: Path) -> None:
    data = run_traced(
        tmp_path,
        """\
        import torch
        x = torch.arange(12).reshape(3, 4)
        a = x.to("meta", non_blocking=True)
        b = torch.empty(3, 2, device="meta").copy_(x[:, :2], non_blocking=True)
        c = torch.tensor([1, 2, 3], device="meta")
        d = x.to(torch.float64)
        e = a.to("meta")
        """,
        ("meta",),
    )
    lines = by_line(data)
    assert set(lines) == {3, 4, 5}  # the dtype change and the device-to-device move are no copy
    (to,) = lines[3]
    assert (to.kind, to.what, to.memory, to.non_blocking, to.nbytes) == (
        H2D,
        ".to()",
        "pageable",
        True,
        96,
    )
    assert to.unknown == 1  # the meta device has no stream to ask
    (strided,) = lines[4]
    assert (strided.what, strided.dense, strided.op) == (".copy_()", False, "aten.copy_")
    (factory,) = lines[5]  # below the dispatcher: recorded by the function mode
    assert (factory.what, factory.waited, factory.nbytes) == ("torch.tensor()", 1, 24)
    assert all(g.site.file == str(tmp_path / "prog.py") for g in data.groups)


def test_intercepts_host_syncs(tmp_path: Path) -> None:
    data = run_traced(
        tmp_path,
        """\
        import torch
        x = torch.arange(12).reshape(3, 4)
        a = x[1, 1].item()
        b = bool(x[0, 1])
        c = x.tolist()
        d = x[x > 3]
        e = torch.nonzero(x)
        f = torch.arange(x[0, 3])
        g = x.unique()
        h = torch.repeat_interleave(x[0], x[0])
        i = torch.repeat_interleave(x[0], x[0], output_size=6)
        j = x + 1
        """,
        ("cpu",),
    )
    found = {line: [(g.what, g.reason) for g in groups] for line, groups in by_line(data).items()}
    assert found == {
        3: [(".item()", SCALAR)],
        4: [("bool()", SCALAR)],
        5: [(".tolist()", "copy to host")],
        6: [("t[...]", "data-dependent shape")],
        7: [("torch.nonzero()", "data-dependent shape")],
        8: [("torch.arange()", SCALAR)],
        9: [(".unique()", "data-dependent shape")],
        10: [("torch.repeat_interleave()", "data-dependent shape")],
    }


def test_stream_marks_decide_whether_a_copy_ran_async(tmp_path: Path) -> None:
    # Per copy: was the stream busy (a check), and had that work finished after the call?
    answers = iter([False, True, None])
    devices: list[object] = []

    def marker(device: object):
        devices.append(device)
        done = next(answers)
        return None if done is None else (lambda: done)

    data = run_traced(
        tmp_path,
        """\
        import torch
        x = torch.arange(4)
        for _ in range(3):
            x.to("meta", non_blocking=True)
        x.to("meta")
        """,
        ("meta",),
        marker=marker,
    )
    groups = {g.non_blocking: g for g in data.groups}
    async_group = groups[True]
    # still running after: async; finished: waited; stream idle before: unknown
    assert (async_group.ran_async, async_group.waited, async_group.unknown) == (1, 1, 1)
    assert groups[False].waited == 1  # blocking: waits, no mark needed
    assert [str(d) for d in devices] == ["meta"] * 3


def test_explicit_syncs_are_recorded_and_unwrapped(tmp_path: Path, monkeypatch) -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    calls: list[int] = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: calls.append(1))
    fake = torch.cuda.synchronize
    data = run_traced(tmp_path, "import torch\ntorch.cuda.synchronize()\n", ("cpu",))
    (group,) = data.groups
    assert (group.what, group.reason, group.explicit, group.site.line) == (
        "torch.cuda.synchronize()",
        EXPLICIT,
        True,
        2,
    )
    assert calls == [1]
    assert torch.cuda.synchronize is fake  # put back


def test_session_stops_cleanly_when_the_code_raises(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    with pytest.raises(ZeroDivisionError):
        run_traced(tmp_path, "import torch\ntorch.ones(2).to('meta')\n1 / 0\n", ("meta",))
    torch.ones(2) + 1  # no mode left behind
    from torch.utils._python_dispatch import _get_current_dispatch_mode

    assert _get_current_dispatch_mode() is None


# -- the join ------------------------------------------------------------------------------------
def recorded() -> TraceData:
    return load_trace(RECORDED)


def copy_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    return project


def recorded_findings() -> list[Finding]:
    # What `h2dlint check` reports on tests/data/trace/project (test_check_trace checks it live).
    return [
        finding("prep.py", "HTD101", 8),
        # The strided view `main` passes (`torch.arange(...)[:, :32]`, placed through the
        # callers' callers): pageable. The grid's rows, a host tensor there, are no sync.
        finding("prep.py", "HTD102", 20),
        # The per-request call of the helper that holds the per-item loop (the seeds' shape).
        finding("serve.py", "HTD101", 12),
        finding("serve.py", "HTD102", 15),
        # A round trip: `lengths` is the host list `counts` copied to the device two lines above
        # (whole reductions count since session 35); HTD202 leaves the read to it (session 37).
        finding("serve.py", "HTD303", 17),
    ]


def test_join_of_the_recorded_trace(tmp_path: Path) -> None:
    project = copy_project(tmp_path)  # another root than the recording's: matched by relative path
    result = join(recorded(), recorded_findings(), lambda file: True, str(project))
    status = {(m.finding.code, m.status) for m in result.matches}
    assert status == {
        ("HTD101", CONFIRMED),
        ("HTD102", CONFIRMED),  # prep.py:20, the strided view's pageable copies
        ("HTD102", CONTRADICTED),  # the source was pinned (and non_blocking): not what it says
        ("HTD303", NOT_REACHED),  # the branch never ran
    }
    confirmed = {m.finding.code: m for m in result.with_status(CONFIRMED)}
    assert confirmed["HTD101"].count == 24 and confirmed["HTD102"].count == 2
    contradicted = result.with_status(CONTRADICTED)[0]
    assert "pinned memory" in contradicted.detail
    # The recording ran on the CPU and counted CPU tensors as device tensors, so the grid's
    # `.item()` per row (a host tensor `main` makes, which the analysis now proves) shows
    # as a costly site no finding covers.
    assert [(s.site.line, s.site.function) for s in result.missed] == [(15, "patches_per_item")]
    assert result.summary()["missed"] == 1


def test_join_without_findings_lists_every_costly_site_missed_by_cost(tmp_path: Path) -> None:
    result = join(recorded(), [], lambda file: True, str(tmp_path))
    order = [(site.once, -site.host_ms) for site in result.missed]
    assert order == sorted(order)
    # The pinned, non_blocking copy at serve.py:15 is no mistake: not missed.
    assert {site.site.line for site in result.missed} == {8, 20, 15}
    assert all(site.site.file.endswith("prep.py") for site in result.missed)
    assert result.missed[0].burst == 24


def test_join_outside_and_explicit() -> None:
    inside, outside = frame("/p/a.py", 3), frame("/site-packages/lib.py", 7)
    trace = TraceData(
        groups=[
            sync((inside,), EXPLICIT),
            sync((outside, inside)),
        ],
        root="/p",
    )
    result = join(trace, [], lambda file: file.startswith("/p/"), "/p")
    assert [s.site for s in result.explicit] == [inside]
    assert [s.site for s in result.outside] == [outside]
    assert result.missed == []


def test_an_explicit_wait_confirms_the_finding_at_its_line() -> None:
    """HTD202 reports a stream wait right after non_blocking copies: the wait it measured
    confirms that finding and is no longer listed apart; an uncovered wait still is."""
    wait, other = frame("/p/a.py", 6), frame("/p/a.py", 12)
    trace = TraceData(
        groups=[sync((wait,), EXPLICIT, host_ms=3.0), sync((other,), EXPLICIT)], root="/p"
    )
    result = join(trace, [finding("a.py", "HTD202", 6)], lambda f: True, "/p")
    assert result.matches[0].status == CONFIRMED
    assert [s.site for s in result.explicit] == [other]


def test_join_matches_a_finding_at_a_caller_of_a_helper() -> None:
    helper, caller = frame("/p/helper.py", 4), frame("/p/main.py", 10)
    trace = TraceData(groups=[h2d((helper, caller), count=8)], root="/p")
    result = join(trace, [finding("main.py", "HTD101", 9, 11)], lambda f: True, "/p")
    assert result.matches[0].status == CONFIRMED
    assert result.missed == []  # the caller's finding covers the helper's copies


def test_join_with_line_coverage() -> None:
    a = frame("/p/a.py", 5)
    trace = TraceData(groups=[sync((a,))], root="/p", lines_run={"/p/a.py": [5, 6, 7]})
    findings = [
        finding("a.py", "HTD202", 6),  # ran, no sync
        finding("a.py", "HTD202", 9),  # did not run
        finding("a.py", "HTD401", 5),  # a race: nothing to measure
        finding("a.py", "HTD102", 5),  # ran, made a sync but no copy
    ]
    result = join(trace, findings, lambda f: True, "/p")
    assert [(m.finding.start.row, m.finding.code, m.status) for m in result.matches] == [
        (6, "HTD202", CONTRADICTED),
        (9, "HTD202", NOT_REACHED),
        (5, "HTD401", NOT_MEASURABLE),
        (5, "HTD102", CONTRADICTED),
    ]
    assert "line coverage" in result.matches[0].detail
    assert result.matches[1].detail == "the line did not run"


def test_a_blocking_copy_confirms_a_sync_rule() -> None:
    a = frame("/p/a.py", 5)
    trace = TraceData(groups=[h2d((a,), waited=1)], root="/p")
    result = join(trace, [finding("a.py", "HTD201", 5)], lambda f: True, "/p")
    assert result.matches[0].status == CONFIRMED


# -- the trace file and the reports -------------------------------------------------------------
def test_trace_file_round_trip(tmp_path: Path) -> None:
    trace = recorded()
    again = tmp_path / "again.json"
    again.write_text(render_json(trace, None))
    assert load_trace(again).to_json() == trace.to_json()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "is not JSON"),
        ('{"format": "other"}', "is not a trace file"),
        ('{"format": "h2dlint-trace", "version": 99, "trace": {}}', "version 99"),
        ('{"format": "h2dlint-trace", "version": 1, "trace": {"groups": [{}]}}', "malformed"),
    ],
)
def test_bad_trace_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    with pytest.raises(TraceFileError, match=message):
        load_trace(path)
    with pytest.raises(TraceFileError, match="cannot read"):
        load_trace(tmp_path / "missing.json")


def test_text_report(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    trace = recorded()
    result = join(trace, recorded_findings(), lambda f: True, str(project))
    text = render_text(trace, result)
    lines = text.splitlines()
    assert lines[0].startswith("h2dlint trace: python serve.py (exit 0")
    start = next(i for i, line in enumerate(lines) if line.startswith("Host time lost"))
    table = lines[start + 2 :][:4]
    costs = [float(row.split()[0]) for row in table]
    assert costs == sorted(costs, reverse=True)  # sorted by host time lost
    assert "prep.py:8 move_items" in table[0]
    assert "24 copies in 1 burst(s)" in text
    assert (
        "1 confirmed" not in text and "3 confirmed, 1 contradicted, 1 not reached, 1 missed" in text
    )
    order = [
        text.index(title)
        for title in ("missed (", "confirmed (", "contradicted (", "not reached (")
    ]
    assert order == sorted(order)  # missed first


def test_json_report_holds_the_join(tmp_path: Path) -> None:
    trace = recorded()
    result = join(trace, recorded_findings(), lambda f: True, str(copy_project(tmp_path)))
    data = json.loads(render_json(trace, result))
    assert data["format"] == "h2dlint-trace" and data["join"] == join_json(result)
    assert data["join"]["summary"]["confirmed"] == 3
    assert data["join"]["findings"][0]["status"] == CONFIRMED


def test_sarif_report_is_valid(tmp_path: Path) -> None:
    trace = recorded()
    result = join(trace, recorded_findings(), lambda f: True, str(copy_project(tmp_path)))
    log = json.loads(render_sarif(trace, result))
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == 4
    first = results[0]["properties"]
    assert (first["count"], first["memory"], first["join"]) == (24, "pageable", "confirmed")
    levels = {r["properties"]["join"]: r["level"] for r in results}
    assert levels["missed"] == "warning"


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("t.json", "json"), ("t.sarif", "sarif"), ("t.sarif.json", "sarif"), ("t.txt", "text")],
)
def test_format_for(name: str, fmt: str) -> None:
    assert format_for(Path(name)) == fmt


# -- the program ---------------------------------------------------------------------------------
def test_parse_commands(tmp_path: Path) -> None:
    script = write(tmp_path / "s.py", "")
    assert parse(["python", str(script), "a", "-b"]) == Program("script", str(script), ("a", "-b"))
    assert parse(["python3.11", "-u", "-m", "pkg.mod", "x"]) == Program("module", "pkg.mod", ("x",))
    assert parse(["/usr/bin/python3", "-c", "print(1)", "y"]) == Program("code", "print(1)", ("y",))
    assert parse([str(script)]) == Program("script", str(script), ())
    for bad, message in (
        ([], "give the program"),
        (["python"], "no script"),
        (["python", "-m"], "needs an argument"),
        (["python", "-O", str(script)], "not supported"),
        (["python", str(tmp_path / "missing.py")], "can't open file"),
    ):
        with pytest.raises(UsageError, match=message):
            parse(bad)


def test_exit_code_of_sys_exit(capsys) -> None:
    assert (exit_code(None), exit_code(4)) == (0, 4)
    assert exit_code("bye") == 1
    assert capsys.readouterr().err == "bye\n"


def run_program(tmp_path: Path, source: str, args: list[str], capfd, outputs=()) -> int:
    pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.trace.command import trace_program

    script = write(tmp_path / "prog.py", source)
    command = ["python", str(script), *args]
    return trace_program(
        parse(command), command, list(outputs), False, False, [], 8, False, ("meta",)
    )


def test_the_program_exit_code_and_output_pass_through(tmp_path: Path, capfd) -> None:
    source = """\
        import sys
        import torch
        torch.ones(4).to("meta")
        print("out", sys.argv[1:])
        print("err", file=sys.stderr)
        sys.exit(int(sys.argv[1]))
        """
    code = run_program(tmp_path, source, ["7"], capfd, [tmp_path / "r.json"])
    out, err = capfd.readouterr()
    assert code == 7
    assert out == "out ['7']\n"
    assert err.startswith("err\nh2dlint trace: python ")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["trace"]["exit_code"] == 7 and len(report["trace"]["groups"]) == 1


def test_an_exception_still_writes_the_report(tmp_path: Path, capfd) -> None:
    source = """\
        import torch
        torch.ones(4).to("meta")
        raise ValueError("broken")
        """
    code = run_program(tmp_path, source, [], capfd, [tmp_path / "r.json", tmp_path / "r.txt"])
    err = capfd.readouterr().err
    assert code == 1
    assert 'prog.py", line 3' in err and "ValueError: broken" in err
    assert "runpy" not in err  # the program's traceback, as python prints it
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["trace"]["error"] == "ValueError: broken"
    assert "the program raised: ValueError: broken" in (tmp_path / "r.txt").read_text()


def test_no_cuda_is_a_clear_message_and_exit_3(tmp_path: Path, monkeypatch) -> None:
    script = write(tmp_path / "s.py", "print('never runs')\n")
    monkeypatch.setattr(trace_command, "cuda_problem", lambda: trace_command.NO_CUDA_MESSAGE)
    result = CliRunner().invoke(main, ["trace", "--", "python", str(script)])
    assert result.exit_code == trace_command.EXIT_NO_CUDA == 3
    assert result.output == trace_command.NO_CUDA_MESSAGE + "\n"
    assert "Traceback" not in result.output


def test_no_torch_is_a_clear_message(monkeypatch) -> None:
    monkeypatch.setattr(trace_command, "import_torch", lambda: None)
    assert trace_command.cuda_problem() == trace_command.NO_TORCH_MESSAGE


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["trace", "--", "python", str(tmp_path / "missing.py")])
    assert result.exit_code == 2 and "can't open file" in result.output
    assert runner.invoke(main, ["trace"]).exit_code == 2


def test_the_real_command_without_cuda(tmp_path: Path) -> None:
    """On this CPU machine: a subprocess, its real exit code and message, no traceback."""
    pytest.importorskip("torch", reason=NEEDS_TORCH)
    script = write(tmp_path / "s.py", "print('never runs')\n")
    done = subprocess.run(
        [sys.executable, "-m", "h2dlint", "trace", "--", "python", str(script)],
        capture_output=True,
        text=True,
        check=False,
    )
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr.strip() == trace_command.NO_CUDA_MESSAGE


def test_the_trace_context_manager_and_decorator(tmp_path: Path, capsys) -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.trace import trace

    output = tmp_path / "t.json"
    with trace(output, report=False, lint=False, device_types=("meta",)) as traced:
        torch.ones(3).to("meta")
    assert traced.data is not None and traced.data.groups[0].count == 1
    assert json.loads(output.read_text())["trace"]["groups"][0]["what"] == ".to()"

    @trace(device_types=("meta",), lint=False)
    def step() -> None:
        torch.ones(3).to("meta")

    step()
    assert "Host time lost, by call site (1; most first)" in capsys.readouterr().err


def test_the_trace_context_manager_without_cuda() -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.trace.api import TraceUnavailable, trace

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(TraceUnavailable, match="no CUDA device"), trace():
        pass


@pytest.mark.skipif(sys.version_info < (3, 12), reason="line coverage needs sys.monitoring")
def test_line_coverage(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.trace.session import Session

    path = write(tmp_path / "cov.py", "x = 1\nif x > 2:\n    y = 3\nz = 4\n")
    session = Session(torch, root=tmp_path, device_types=("meta",))
    session.start()
    try:
        exec(compile(path.read_text(), str(path), "exec"), {})
    finally:
        trace = session.stop()
    assert trace.lines_run == {str(path): [1, 2, 4]}


# -- check --trace -------------------------------------------------------------------------------
def check(project: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["check", "--no-cache", "--trace", str(RECORDED), *args, str(project)]
    )
    return result.exit_code, result.output


def test_check_trace_marks_findings_in_every_format(tmp_path: Path, monkeypatch) -> None:
    project = copy_project(tmp_path)
    monkeypatch.chdir(project)
    code, text = check(project, "--output-format", "concise")
    assert code == 1
    marks = {
        (line.split(":")[0], line.split()[1]): line for line in text.splitlines() if ": HTD" in line
    }
    assert "[confirmed: 24 events" in marks["prep.py", "HTD101"]
    # The call of the helper on each request: the same copies, through its frame.
    assert "[confirmed: 24 events" in marks["serve.py", "HTD101"]
    assert "[confirmed: 2 events" in marks["prep.py", "HTD102"]
    assert "[contradicted]" in marks["serve.py", "HTD102"]
    assert "[not reached]" in marks["serve.py", "HTD303"]
    assert "trace: 3 confirmed, 1 contradicted, 1 not reached; 1 costly call site" in text

    _, out = check(project, "--output-format", "json", "-q")
    records = {r["code"]: r["trace"] for r in json.loads(out)}
    assert records["HTD101"]["status"] == CONFIRMED and records["HTD101"]["count"] == 24
    assert records["HTD303"]["status"] == NOT_REACHED

    _, out = check(project, "--output-format", "sarif", "-q")
    results = json.loads(out)["runs"][0]["results"]
    assert {r["ruleId"]: r["properties"]["trace"]["status"] for r in results}["HTD102"] == (
        CONTRADICTED
    )

    _, out = check(project, "--output-format", "github", "-q")
    # move_items' items are a parameter: host only if the callers say so, hence medium.
    assert "title=h2dlint (HTD101%2C medium confidence%2C confirmed%3A 24 events" in out


def test_check_only_confirmed(tmp_path: Path, monkeypatch) -> None:
    project = copy_project(tmp_path)
    monkeypatch.chdir(project)
    code, text = check(project, "--output-format", "concise", "--only-confirmed", "-q")
    assert code == 1
    assert sorted(line.split()[1] for line in text.splitlines()) == ["HTD101", "HTD101", "HTD102"]


def test_check_trace_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--only-confirmed", str(tmp_path)])
    assert result.exit_code == 2 and "--only-confirmed needs --trace" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    result = runner.invoke(main, ["check", "--trace", str(bad), str(tmp_path)])
    assert result.exit_code == 2 and "is not a trace file" in result.output


def test_marks_and_filter_keep_file_errors() -> None:
    error = Finding("x.py", "E999", "syntax error", Location(1, 1), Location(1, 1))
    marked, summary = mark_findings([error], TraceData(root="/p"), Path("/p"), [])
    assert marked == [error] and marked[0].trace is None
    assert only_confirmed(marked) == [error]
    assert summary.startswith("trace: 0 confirmed")


def test_check_trace_does_not_import_torch(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    code = (
        "import sys\n"
        "from h2dlint.cli import main\n"
        "try:\n"
        f"    main(['check', '--no-cache', '-q', '--trace', {str(RECORDED)!r}, {str(project)!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('torch' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=project
    )
    assert done.stderr.strip().splitlines()[-1] == "False"


def test_recorded_trace_matches_what_check_reports(tmp_path: Path, monkeypatch) -> None:
    """The findings the join tests assume are the ones check reports on the project."""
    project = copy_project(tmp_path)
    monkeypatch.chdir(project)
    result = CliRunner().invoke(
        main, ["check", "--no-cache", "-q", "--output-format", "json", str(project)]
    )
    got = sorted(
        (r["filename"].rsplit("/", 1)[1], r["code"], r["location"]["row"])
        for r in json.loads(result.output)
    )
    want = sorted((f.path, f.code, f.start.row) for f in recorded_findings())
    assert got == want


def test_document_without_join() -> None:
    assert document(TraceData(), None)["join"] is None


def test_the_example_runs_traced_on_the_cpu(tmp_path: Path, capfd, monkeypatch) -> None:
    """The H200 example, small, on the CPU with CPU tensors counted as device tensors: it runs
    under the interception, and its per-row syncs confirm HTD201."""
    pytest.importorskip("torch", reason=NEEDS_TORCH)
    from h2dlint.trace.command import trace_program

    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)
    serve = "examples/trace_serving/serve.py"
    command = ["python", serve, "--device", "cpu", "--hidden", "16", "--layers", "1"]
    command += ["--requests", "1", "--items", "2", "--steps", "1", "--warmup", "0"]
    output = tmp_path / "example.json"
    modules = dict(sys.modules)
    try:
        code = trace_program(parse(command), command, [output], True, True, [], 8, False, ("cpu",))
    finally:
        for name in set(sys.modules) - set(modules):  # the example's own modules
            if name in ("model", "preprocess", "buffers"):
                del sys.modules[name]
    out = capfd.readouterr().out
    assert code == 0 and out.startswith("steps: 1, median step:")
    report = json.loads(output.read_text())
    statuses = {(f["code"], f["status"]) for f in report["join"]["findings"]}
    assert ("HTD201", CONFIRMED) in statuses
    assert ("HTD101", NOT_REACHED) in statuses  # the copies are CPU to CPU here: none


def test_the_h200_recording_of_the_example_confirms_every_seeded_mistake(monkeypatch) -> None:
    """A trace of examples/trace_serving recorded on an H200 (benchmarks/device/trace.sh, in a
    checkout at another path): check --trace marks exactly the six seeded mistakes confirmed."""
    monkeypatch.chdir(ROOT)
    recording = TRACE_DATA / "h200-example.trace.json"
    arguments = ["check", "--no-cache", "-q", "--output-format", "json", "--trace"]
    result = CliRunner().invoke(main, [*arguments, str(recording), "examples/trace_serving"])
    reports = json.loads(result.output)
    got = sorted(
        (Path(r["filename"]).name, r["code"], r["location"]["row"], r["trace"]["status"])
        for r in reports
    )
    assert got == [
        ("model.py", "HTD103", 27, "confirmed"),
        ("model.py", "HTD104", 36, "confirmed"),
        ("preprocess.py", "HTD101", 31, "confirmed"),
        ("preprocess.py", "HTD101", 36, "confirmed"),
        ("preprocess.py", "HTD201", 44, "confirmed"),
        ("serve.py", "HTD106", 28, "confirmed"),
    ]


def test_missed_sites_that_ran_once_come_after_repeated_ones() -> None:
    from h2dlint.trace.events import EventGroup, Frame
    from h2dlint.trace.join import _sites

    def group(line: int, count: int, host_ms: float) -> EventGroup:
        frame = Frame("/p/serve.py", line, "f")
        return EventGroup("H2D", ".to()", "aten._to_copy", (frame,), count=count, host_ms=host_ms)

    # A model's move at load (one copy, 50 ms) and a per-step copy (100 copies, 3 ms in all).
    sites = _sites([group(3, 1, 50.0), group(9, 100, 3.0), group(12, 1, 0.5)], {})
    assert [(s.site.line, s.once) for s in sites] == [(9, False), (3, True), (12, True)]

"""HTD103 (non-blocking copy from a non-contiguous view of pinned memory) and HTD105 (blocking
copy from pinned memory): the layout and aliasing helpers behind them, and their fixes on varied
code."""

from __future__ import annotations

import json
import textwrap
from typing import ClassVar

import libcst as cst
import pytest

from h2dlint.analysis.copies import non_blocking_h2d_source
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target, by_name
from h2dlint.analysis.views import Layout, layout
from h2dlint.analysis.writes import buffer_roots, function_writes, view_root
from h2dlint.context import FileContext
from h2dlint.engine import EnabledRule, check_text
from h2dlint.fixer import fix_text
from h2dlint.registry import all_rules
from h2dlint.rule import Rule

HTD103 = all_rules()["HTD103"]
HTD105 = all_rules()["HTD105"]


def _enabled(rule: type[Rule]) -> tuple[EnabledRule, ...]:
    return (EnabledRule(rule),)


def findings(rule: type[Rule], code: str) -> list[tuple[int, int, str]]:
    return [
        (f.start.row, f.start.column, f.message)
        for f in check_text(textwrap.dedent(code), "m.py", _enabled(rule))
        if f.code == rule.code
    ]


def fixed(rule: type[Rule], code: str) -> str:
    text = textwrap.dedent(code)
    outcome = fix_text(text, "m.py", _enabled(rule), unsafe=True)
    again = fix_text(outcome.text, "m.py", _enabled(rule), unsafe=True)
    assert again.text == outcome.text, "a second fix pass changed the file"
    cst.parse_module(outcome.text)
    return outcome.text


# -- layout ----------------------------------------------------------------------------------
class LayoutProbe(Rule):
    """## What it does
    Test rule recording the layout and buffer roots of `probe(...)` arguments."""

    code = "HTD981"
    name = "layout-probe"
    message = "probe"
    layouts: ClassVar[list[Layout]] = []
    roots: ClassVar[list[set[str]]] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            provenance = Provenance.of(self.context)
            frame = provenance.current_frame()
            expr = node.args[0].value
            type(self).layouts.append(layout(provenance, expr, frame))
            type(self).roots.append(buffer_roots(provenance, expr, frame))


def layout_of(code: str) -> Layout:
    LayoutProbe.layouts = []
    check_text("import torch\n" + code, "m.py", (EnabledRule(LayoutProbe),))
    return LayoutProbe.layouts[-1]


PINNED_2D = "def f(n, device, i):\n    b = torch.zeros(4, 8, pin_memory=True)\n    probe({})"


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("b", Layout.DENSE),
        ("b[:n]", Layout.DENSE),
        ("b[2, :n]", Layout.DENSE),
        ("b.view(-1)", Layout.DENSE),
        ("b.narrow(0, 0, n)", Layout.DENSE),
        ("b[:, :n].contiguous()", Layout.DENSE),
        ("b.T", Layout.PERMUTED),
        ("b.mT", Layout.PERMUTED),
        ("b.t()", Layout.PERMUTED),
        ("b.transpose(0, 1)", Layout.PERMUTED),
        ("b.permute(1, 0)", Layout.PERMUTED),
        ("b.T.unsqueeze(0)", Layout.PERMUTED),
        ("b.T[:, :]", Layout.PERMUTED),
        ("b[:, :n]", Layout.STRIDED),
        ("b[..., 1:3]", Layout.STRIDED),
        ("b[::2]", Layout.STRIDED),
        ("b[:, 0]", Layout.STRIDED),
        ("b.narrow(1, 0, n)", Layout.STRIDED),
        ("b.select(1, 0)", Layout.STRIDED),
        ("b.diagonal()", Layout.STRIDED),
        ("b[:, :n].T", Layout.STRIDED),
        ("b[:, :n][::2]", Layout.STRIDED),
        # unknown: could be dense again, or depends on shapes and values
        ("b.T[:n]", Layout.UNKNOWN),
        ("b[:, :n][0]", Layout.UNKNOWN),
        ("b.narrow(-1, 0, n)", Layout.UNKNOWN),
        ("b.narrow(i, 0, n)", Layout.UNKNOWN),
        ("b.expand(2, 4, 8)", Layout.UNKNOWN),
        ("b.as_strided((2, 2), (1, 2))", Layout.UNKNOWN),
        ("b[:, i]", Layout.UNKNOWN),
    ],
)
def test_layout_of_views_of_a_pinned_buffer(expr: str, expected: Layout) -> None:
    assert layout_of(PINNED_2D.format(expr)) is expected


def test_layout_follows_names_and_attributes() -> None:
    assert layout_of("def f(n):\n    b = torch.zeros(4, 8)\n    v = b[:, :n]\n    probe(v)") is (
        Layout.STRIDED
    )
    assert layout_of("def f(x):\n    probe(x.T)") is Layout.UNKNOWN
    code = (
        "class A:\n"
        "    def __init__(self):\n"
        "        self.buf = torch.zeros(4, 8, pin_memory=True)\n"
        "    def f(self):\n"
        "        probe({})"
    )
    assert layout_of(code.format("self.buf")) is Layout.DENSE
    assert layout_of(code.format("self.buf.T")) is Layout.PERMUTED
    assert layout_of(code.format("self.buf[:, :3]")) is Layout.STRIDED


# -- aliasing --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("expr", "root"),
    [
        ("buf", "buf"),
        ("buf[:, :n]", "buf"),
        ("self.buf[:n].T", "self.buf"),
        ("buf.narrow(1, 0, n).view(-1)", "buf"),
        ("buf.numpy()", "buf"),
        ("buf.to(dev)", None),
        ("make()[0]", None),
        ("torch.zeros(3)", None),
    ],
)
def test_view_root(expr: str, root: str | None) -> None:
    assert view_root(cst.parse_expression(expr)) == root


def test_buffer_roots_follow_local_aliases() -> None:
    LayoutProbe.roots = []
    check_text(
        "import torch\n"
        "def f(n):\n"
        "    b = torch.zeros(4, 8, pin_memory=True)\n"
        "    v = b[:, :n]\n"
        "    w = v\n"
        "    probe(w)\n",
        "m.py",
        (EnabledRule(LayoutProbe),),
    )
    assert LayoutProbe.roots[-1] == {"w", "v", "b"}


def test_function_writes() -> None:
    module = cst.parse_module(
        textwrap.dedent(
            """\
            import numpy as np
            import torch
            def f(a, b, c, d, e, g, h, xs):
                a[0] = 1
                b += 1
                c.zero_()
                torch.cat(xs, out=d[:4])
                np.copyto(e.numpy(), xs)
                torch.nn.init.zeros_(g)
                h = torch.zeros(3)
                y = a.to("cuda")
                def inner():
                    xs[0] = 1
            """
        )
    )
    from h2dlint.imports import ImportTable

    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    writes = function_writes(function, ImportTable.from_module(module))
    assert {w.root for w in writes.writes} == {"a", "b", "c", "d", "e", "g"}
    assert not writes.written({"h", "xs", "y"})


# -- HTD103 ----------------------------------------------------------------------------------
def test_h2d003_fix_keeps_comments_and_layout() -> None:
    code = """\
        import torch
        def f(n, dev):
            cpu = torch.zeros(3, 64, pin_memory=True)
            gpu = torch.zeros(3, 64, device=dev)
            if n:
                # the scheduled tokens
                gpu[:, : n + 1].copy_(
                    cpu[:, : n + 1],
                    non_blocking=True,
                )  # async
            return gpu
        """
    assert fixed(HTD103, code) == textwrap.dedent(
        """\
        import torch
        def f(n, dev):
            cpu = torch.zeros(3, 64, pin_memory=True)
            gpu = torch.zeros(3, 64, device=dev)
            if n:
                # the scheduled tokens
                for _row in range(gpu.shape[0]):
                    gpu[_row, : n + 1].copy_(
                        cpu[_row, : n + 1],
                        non_blocking=True,
                    )  # async
            return gpu
        """
    )


def test_h2d003_fix_at_module_level_picks_a_free_loop_variable() -> None:
    code = """\
        import torch
        _row, _row1 = 0, 1
        cpu = torch.zeros(3, 64, pin_memory=True)
        gpu = torch.zeros(3, 64, device="cuda")
        gpu[:,:8].copy_(cpu[:,:8],non_blocking=True)
        """
    assert fixed(HTD103, code).splitlines()[-2:] == [
        "for _row2 in range(gpu.shape[0]):",
        "    gpu[_row2,:8].copy_(cpu[_row2,:8],non_blocking=True)",
    ]


@pytest.mark.parametrize(
    "line",
    [
        # different slices on the two sides
        "gpu[:, :n].copy_(cpu[:, 1 : n + 1], non_blocking=True)",
        # a bound that is not a plain value (evaluated once per row after the fix)
        "gpu[:, : len(xs)].copy_(cpu[:, : len(xs)], non_blocking=True)",
        # a step: each row would still be strided
        "gpu[:, :n:2].copy_(cpu[:, :n:2], non_blocking=True)",
        # not alone on its line
        "gpu[:, :n].copy_(cpu[:, :n], non_blocking=True); n += 1",
        # more than two dimensions indexed
        "gpu[:, :n, 0].copy_(cpu[:, :n, 0], non_blocking=True)",
        # another argument
        "gpu[:, :n].copy_(cpu[:, :n], non_blocking=True, extra=1)",
        # a subscripted buffer, not a name or an attribute
        "bufs[0][:, :n].copy_(cpu[:, :n], non_blocking=True)",
        # ``range`` rebound in the function
        "range = xs\n    gpu[:, :n].copy_(cpu[:, :n], non_blocking=True)",
    ],
)
def test_h2d003_reports_other_forms_without_a_fix(line: str) -> None:
    code = (
        "import torch\n"
        "def f(n, xs, bufs, dev):\n"
        "    cpu = torch.zeros(3, 64, 2, pin_memory=True)\n"
        "    gpu = torch.zeros(3, 64, 2, device=dev)\n"
        f"    {line}\n"
    )
    assert [row for row, _, _ in findings(HTD103, code)] == [code.count("\n")]
    assert fixed(HTD103, code) == code


def test_h2d003_no_fix_when_the_source_is_rewritten_after_the_copy() -> None:
    code = """\
        import torch
        def f(n, gpu, new):
            cpu = torch.zeros(3, 64, pin_memory=True)
            gpu[:, :n].copy_(cpu[:, :n], non_blocking=True)
            cpu[:, :n] = new
        """
    assert len(findings(HTD103, code)) == 1
    assert fixed(HTD103, code) == textwrap.dedent(code)


def test_h2d003_fix_is_offered_when_the_source_is_only_filled_before() -> None:
    code = """\
        import torch
        def f(n, gpu, new):
            cpu = torch.zeros(3, 64, pin_memory=True)
            cpu[:, :n] = new
            gpu[:, :n].copy_(cpu[:, :n], non_blocking=True)
            return [i for i in range(n)]
        """
    assert "for _row in range(gpu.shape[0]):" in fixed(HTD103, code)


@pytest.mark.parametrize(
    ("source", "pinning", "fix"),
    [
        ("torch.zeros(3, 64, pin_memory=True)", "pinned memory", True),
        ("torch.zeros(3, 64, pin_memory=flag)", "pinned when pinning is enabled", True),
        (
            "torch.zeros(3, 64, pin_memory=True) if flag else torch.zeros(3, 64)",
            "host memory",
            True,
        ),
        ("torch.zeros(3, 64)", "pin the buffer", False),
    ],
)
def test_h2d003_any_host_memory(source: str, pinning: str, fix: bool) -> None:
    """Pinned or not, a strided view is staged; row by row helps only pinned memory."""
    code = f"""\
        import torch
        def f(n, t, flag, gpu):
            buf = {source}
            gpu[:, :n].copy_(buf[:, :n], non_blocking=True)
        """
    ((_, _, message),) = findings(HTD103, code)
    assert pinning in message
    assert ("for _row in range(gpu.shape[0]):" in fixed(HTD103, code)) is fix


def test_h2d003_host_named_half_of_a_buffer_pair_is_medium() -> None:
    code = """\
        class Runner:
            def prepare(self, n):
                self.pos.gpu[:, :n].copy_(self.pos.cpu[:, :n], non_blocking=True)
        """
    (finding,) = check_text(textwrap.dedent(code), "m.py", _enabled(HTD103))
    assert finding.confidence.value == "medium"
    assert "certain once `self.pos.cpu` is proven host memory" in finding.message


@pytest.mark.parametrize(
    "line",
    [
        "self.pos.gpu[:, :n].copy_(self.pos.cpu[:, :], non_blocking=True)",  # whole rows
        "self.pos.gpu[:, :n].copy_(self.pos.cpu[:, :n])",  # blocking
        "self.pos.gpu[0, :n].copy_(self.pos.cpu[0, :n], non_blocking=True)",  # one row
        "self.pos.gpu[:n].copy_(self.pos.cpu[:n], non_blocking=True)",  # leading slice
        "self.out[:, :n].copy_(self.pos.cpu[:, :n], non_blocking=True)",  # no device name
        "self.pos.gpu[:, :n].copy_(self.pos.staging[:, :n], non_blocking=True)",  # no host name
    ],
)
def test_h2d003_host_named_look_alikes(line: str) -> None:
    code = f"class Runner:\n    def prepare(self, n):\n        {line}\n"
    assert findings(HTD103, code) == []


@pytest.mark.parametrize(
    ("call", "device"),
    [
        ("x.to(d, non_blocking=True)", True),
        ("x.to(target, non_blocking=True)", True),
        ("x.to(device=d, non_blocking=True)", True),
        ("x.to(torch.device(d), non_blocking=True)", True),
        ("x.to(d)", False),  # blocking: the name decides, as before
        ("x.to('cpu', non_blocking=True)", False),
        ("x.to(cpu_device, non_blocking=True)", False),
        ("x.to(torch.float16, non_blocking=True)", False),
        ("x.to(dtype=d, non_blocking=True)", False),
        ("x.to(non_blocking=True)", False),
        ("x.to(host, non_blocking=True)", False),  # the device of a host tensor
    ],
)
def test_non_blocking_copies_to_unnamed_targets(call: str, device: bool) -> None:
    code = (
        "import torch\n"
        "def f(d, target, cpu_device):\n"
        "    host = torch.zeros(2)\n"
        f"    return {call}\n"
    )
    module = cst.parse_module(code)
    provenance = Provenance(FileContext("m.py", code, module))
    function = module.body[1]
    assert isinstance(function, cst.FunctionDef)
    statement = function.body.body[-1]
    assert isinstance(statement, cst.SimpleStatementLine)
    returned = statement.body[0]
    assert isinstance(returned, cst.Return) and isinstance(returned.value, cst.Call)
    found = non_blocking_h2d_source(provenance, returned.value, Frame(function))
    assert (found is not None) is device


def test_h2d003_transposed_source() -> None:
    # .to keeps a dense transpose's strides; a contiguous memory format or copy_ does not
    base = "import torch\ndef f(device, g):\n    a = torch.zeros(4, 8, pin_memory=True)\n    {}\n"
    assert findings(HTD103, base.format("return a.T.to(device, non_blocking=True)")) == []
    assert findings(HTD103, base.format("return a.t().cuda(non_blocking=True)")) == []
    contiguous = "memory_format=torch.contiguous_format"
    code = base.format(f"return a.T.to(device, non_blocking=True, {contiguous})")
    assert len(findings(HTD103, code)) == 1
    assert len(findings(HTD103, base.format("g.copy_(a.permute(1, 0), non_blocking=True)"))) == 1
    assert findings(HTD103, base.format("g.T.copy_(a.T, non_blocking=True)")) == []


def test_h2d003_message_names_the_view_and_the_pinning() -> None:
    code = """\
        import torch
        def f(n, pin, device):
            buf = torch.zeros(4, 64, pin_memory=pin)
            return buf[:, :n].to(device, non_blocking=True)
        """
    ((_, _, message),) = findings(HTD103, code)
    assert "`buf[:, :n]`" in message
    assert "pinned when pinning is enabled" in message


# -- HTD105 ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x.cuda()", "x.cuda(non_blocking=True)"),
        ("x.to(dev,)", "x.to(dev, non_blocking=True,)"),
        ("x.to(dev, non_blocking = False)", "x.to(dev, non_blocking = True)"),
        ("x.to(dev, copy=True)", "x.to(dev, copy=True, non_blocking=True)"),
        ("x.cuda(non_blocking=False)", "x.cuda(non_blocking=True)"),
        ("x.to(device=dev)", "x.to(device=dev, non_blocking=True)"),
    ],
)
def test_h2d006_fix_forms(before: str, after: str) -> None:
    code = (
        f"import torch\ndef f(dev):\n    x = torch.zeros(8, pin_memory=True)\n    return {before}\n"
    )
    assert fixed(HTD105, code) == code.replace(before, after)


def test_h2d006_fix_one_argument_a_line() -> None:
    code = """\
        import torch
        def f(dev, gpu):
            x = torch.zeros(8, pin_memory=True)
            gpu.copy_(
                x,
            )
            return x.to(
                device=dev,
                copy=True,
            )
        """
    assert fixed(HTD105, code) == textwrap.dedent(
        """\
        import torch
        def f(dev, gpu):
            x = torch.zeros(8, pin_memory=True)
            gpu.copy_(
                x,
                non_blocking=True,
            )
            return x.to(
                device=dev,
                copy=True,
                non_blocking=True,
            )
        """
    )


@pytest.mark.parametrize(
    "body",
    [
        # rewritten after the copy, through a view, an out= or an alias
        "y = buf[:4].to(dev)\n    buf.fill_(0)\n    return y",
        "y = buf.to(dev)\n    torch.cat(xs, out=buf)\n    return y",
        "v = buf[:4]\n    y = v.to(dev)\n    buf[:4] = 1\n    return y",
        "y = buf.to(dev); buf.zero_()\n    return y",
        # rewritten in the next iteration
        "for x in xs:\n        buf.copy_(x)\n        out = buf.to(dev)\n    return out",
        # a sync or a host read right after anyway
        "y = buf.to(dev)\n    torch.cuda.synchronize()\n    return y",
        "y = buf.to(dev); stream.synchronize()\n    return y",
        "y = buf.to(dev)\n    n = int(y.sum().item())\n    return n",
        "return buf.to(dev).tolist()",
        # pinned but not contiguous: staged anyway
        "return buf.view(2, 4).T.to(dev)",
    ],
)
def test_h2d006_leaves_alone(body: str) -> None:
    code = (
        "import torch\n"
        "def f(dev, xs, stream):\n"
        "    buf = torch.empty(8, pin_memory=True)\n"
        f"    {body}\n"
    )
    assert findings(HTD105, code) == []


def test_h2d006_no_fix_when_another_method_refills_the_buffer() -> None:
    code = """\
        import torch
        class Staging:
            def __init__(self, n):
                self.buf = torch.empty(n, pin_memory=True)
                self.buf.zero_()
            def fill(this, x):
                this.buf[: x.numel()].copy_(x)
            def send(self, n, device):
                return self.buf[:n].to(device)
        """
    ((row, _, message),) = findings(HTD105, code)
    assert row == 9 and "rewritten" in message
    assert fixed(HTD105, code) == textwrap.dedent(code)


def test_h2d006_fix_when_only_init_writes_the_buffer() -> None:
    code = """\
        import torch
        class Table:
            def __init__(self, values):
                self.host = torch.empty(len(values), pin_memory=True)
                self.host.copy_(torch.tensor(values))
            def send(self, device):
                return self.host.to(device)
        """
    assert "self.host.to(device, non_blocking=True)" in fixed(HTD105, code)


def test_h2d006_json_edit_inserts_the_keyword() -> None:
    from click.testing import CliRunner

    from h2dlint.cli import main

    runner = CliRunner()
    code = "import torch\nx = torch.zeros(8, pin_memory=True)\ny = x.to('cuda')\n"
    result = runner.invoke(
        main,
        ["--output-format", "json", "--select", "HTD105", "--no-cache", "-"],
        input=code,
    )
    (finding,) = json.loads(result.output)
    (edit,) = finding["fix"]["edits"]
    # The edit is the smallest change that applying the fix makes.
    assert edit["content"] == ", non_blocking=True"
    assert edit["location"] == edit["end_location"] == {"row": 3, "column": 16}
    assert finding["fix"]["applicability"] == "unsafe"


@pytest.mark.parametrize(
    ("name", "device"),
    [
        ("device", True),
        ("dev_id", True),
        ("local_rank", True),
        ("npu", True),
        ("devIdx", True),
        ("gpu_buf", True),
        ("static_inputs", False),  # "npu" inside a longer word
        ("stddev", False),
        ("d", False),
    ],
)
def test_device_names_match_short_words_whole(name: str, device: bool) -> None:
    assert (by_name(name) is Target.DEVICE) is device


def test_h2d001_graph_replay_into_static_inputs_is_not_a_device_copy() -> None:
    code = """\
        import torch
        class Runner:
            def _graph_replay(self, *inputs):
                for i in range(len(inputs)):
                    if torch.is_tensor(inputs[i]):
                        self.static_inputs[i].copy_(inputs[i])
        """
    assert findings(all_rules()["HTD101"], code) == []

"""The analysis facts behind the false alarms of session 10's precision triage of serving code
(docs/precision.md, seed 1010): each look-alike the analysis must now tell apart, and its true
twin."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from h2dlint.analysis.device_branches import holds_on_cuda, only_off_cuda
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_names import name_reason
from h2dlint.analysis.memo_methods import memoised_by_key
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.reference_helpers import reference_helper
from h2dlint.analysis.type_tests import not_a_tensor_here
from h2dlint.analysis.value_syncs import value_where
from h2dlint.context import FileContext


def _context(code: str) -> FileContext:
    text = textwrap.dedent(code)
    return FileContext("m.py", text, cst.parse_module(text), {})


def _functions(context: FileContext) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in context.module.body if isinstance(s, cst.FunctionDef)}


def _while_test(function: cst.FunctionDef) -> cst.BaseExpression:
    loop = next(s for s in function.body.body if isinstance(s, cst.While))
    test = loop.test
    return test.expression if isinstance(test, cst.UnaryOperation) else test


def _reading(code: str) -> tuple[bool, bool]:
    """(the test holds only off CUDA, the test holds whenever the device is CUDA)"""
    test = cst.parse_expression(code)
    return only_off_cuda(test), holds_on_cuda(test)


@pytest.mark.parametrize(
    ("code", "off", "on"),
    [
        ('x.device.type == "cpu" and w.device.type == "cpu"', True, False),
        ('x.device.type == "cpu" and flag', True, False),
        # holds only on CUDA, but its ``else`` runs on CUDA when ``flag`` is false
        ("x.is_cuda and flag", False, False),
        ('x.device.type == "cpu" or flag', False, False),
        ('x.device.type == "cpu" or not w.is_cuda', True, False),
        ("x.is_cuda or w.is_cuda", False, True),
        ("x.is_cuda or flag", False, True),
        ("not (x.is_cuda or flag)", True, False),
        # a ``type`` that is no device's, or a device type no test is known for
        ('self.type == "tapas"', False, False),
        ('self.type == "tapas" and flag', False, False),
        ('x.device.type == "tpu"', False, False),
        ('self.target_device.type == "cpu"', True, False),
        # collections of types, and a device type held in a name
        ('x.device.type in {"cpu", "cuda"}', False, True),
        ('x.device.type in ("cpu", "mps")', True, False),
        ('x.device.type not in ("cpu", "mps")', False, True),
        ('x.device.type not in ["cuda"]', True, False),
        ('device_type == "cuda"', False, True),
        ('self.device_type != "cuda"', True, False),
        ("x.device.type in kinds", False, False),
    ],
)
def test_cuda_readings_of_a_test(code: str, off: bool, on: bool) -> None:
    assert _reading(code) == (off, on)


def test_a_name_rebound_from_itself_in_a_loop_keeps_where_it_lives() -> None:
    context = _context(
        """
        import torch
        def host(n, steps):
            last = len(steps) + 1
            row = torch.zeros(n, dtype=torch.long)
            while not torch.all(row >= last - 1):
                new = torch.zeros(n, dtype=torch.long)
                new = new.clamp(0, last)
                row = new
            return row
        def device(n, steps, dev):
            last = len(steps) + 1
            row = torch.zeros(n, dtype=torch.long, device=dev)
            while not torch.all(row >= last - 1):
                row = (row + 1).clamp(0, last)
            return row
        def unknown(n, steps, rows):
            last = len(steps) + 1
            row = rows
            while not torch.all(row >= last - 1):
                row = row + 1
            return row
        """
    )
    provenance = Provenance.of(context)
    functions = _functions(context)
    for name, where in (("host", Where.HOST), ("device", Where.DEVICE), ("unknown", None)):
        function = functions[name]
        found = value_where(provenance, _while_test(function), Frame(function))
        if where is None:
            assert found is Where.UNKNOWN, name
        else:
            assert found is where or (where is Where.HOST and found.on_host), (name, found)


def test_a_type_test_says_a_name_is_no_tensor() -> None:
    context = _context(
        """
        import torch
        def f(x, scale):
            if isinstance(scale, torch.Tensor):
                a = float(scale)
            else:
                b = float(scale)
            if not torch.is_tensor(x):
                c = float(x)
            d = float(x)
        def g(x):
            if isinstance(x, torch.Tensor):
                return x
            e = float(x)
        """
    )
    provenance = Provenance.of(context)

    def at(name: str, target: str) -> bool:
        function = _functions(context)[name]
        found: list[list[cst.CSTNode]] = []

        class Visit(cst.CSTVisitor):
            def __init__(self) -> None:
                self.stack: list[cst.CSTNode] = []

            def on_visit(self, node: cst.CSTNode) -> bool:
                self.stack.append(node)
                if (
                    isinstance(node, cst.Assign)
                    and isinstance(node.targets[0].target, cst.Name)
                    and node.targets[0].target.value == target
                ):
                    found.append(list(self.stack))
                return True

            def on_leave(self, original_node: cst.CSTNode) -> None:
                self.stack.pop()

        function.visit(Visit())
        ancestors = found[0]
        assign = ancestors[-1]
        assert isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call)
        return not_a_tensor_here(provenance, ancestors, assign.value.args[0].value)

    assert not at("f", "a")
    assert at("f", "b")
    assert at("f", "c")
    assert not at("f", "d")
    assert at("g", "e")


def test_reference_helpers() -> None:
    context = _context(
        """
        def _quantize(x):
            return x
        def _decode(x):
            return _quantize(x)
        def _listed(x):
            return x
        def _shared(x):
            return x
        def quantize_reference(x):
            return _decode(x) + _shared(x)
        def quantize(x):
            return _shared(x)
        _bind_reference_dependencies(quantize_reference, _listed)
        """
    )
    functions = _functions(context)
    assert reference_helper(context, functions["_quantize"])  # through another helper
    assert reference_helper(context, functions["_decode"])
    assert reference_helper(context, functions["_listed"])
    assert not reference_helper(context, functions["_shared"])  # per-call code uses it too
    assert not reference_helper(context, functions["quantize"])


def test_memoised_by_key_with_a_narrower_hit_test() -> None:
    code = """
        def plan_rows(plan, device):
            key = (id(plan), device)
            cached = _ROWS.get(key)
            if cached is not None and cached[2] is plan:
                return cached[0], cached[1]
            rows = build(plan)
            _ROWS[key] = (rows, len(rows), plan)
            return rows, len(rows)
        """
    function = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(function, cst.FunctionDef)
    assert memoised_by_key(function)
    # returning something else than the cached value is no hit
    other = code.replace("return cached[0], cached[1]", "return other[0]")
    function = cst.parse_module(textwrap.dedent(other)).body[0]
    assert isinstance(function, cst.FunctionDef)
    assert not memoised_by_key(function)


def test_a_forward_named_for_the_cpu_is_not_hot_by_its_name() -> None:
    assert name_reason("_cpu_forward", True) is None
    assert name_reason("forward_cpu", True) is None
    assert name_reason("forward_cuda", True) is not None
    assert name_reason("_attn_forward", True) is not None

"""The analysis facts behind the false alarms of session 11's precision triage of serving code
(docs/precision.md, seed 1012): each look-alike the analysis must now tell apart, and its true
twin."""

from __future__ import annotations

import textwrap

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_calls import debug_guard
from h2dlint.analysis.hot_names import name_reason
from h2dlint.analysis.once import once_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.races import blocking_to_host
from h2dlint.context import FileContext


def _context(code: str) -> FileContext:
    text = textwrap.dedent(code)
    return FileContext("m.py", text, cst.parse_module(text), {})


def _returned(context: FileContext, name: str) -> tuple[Provenance, Frame, cst.BaseExpression]:
    function = next(
        s for s in context.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name
    )
    last = function.body.body[-1]
    assert isinstance(last, cst.SimpleStatementLine)
    statement = last.body[0]
    assert isinstance(statement, cst.Return) and statement.value is not None
    return Provenance.of(context), Frame(function), statement.value


def test_a_view_of_a_raw_host_address_is_host_memory_of_unknown_pinning() -> None:
    context = _context(
        """
        import array
        import ctypes
        import torch
        def raw(ptr, n):
            return torch.frombuffer((ctypes.c_uint8 * n).from_address(ptr), dtype=torch.uint8)
        def python(ids):
            return torch.frombuffer(array.array("q", ids), dtype=torch.long)
        """
    )
    provenance, frame, value = _returned(context, "raw")
    fact = provenance.fact(value, frame)
    assert fact.where is Where.HOST
    provenance, frame, value = _returned(context, "python")
    assert provenance.fact(value, frame).where is Where.PAGEABLE


def test_a_blocking_copy_to_torch_device_cpu_waits() -> None:
    def call(code: str) -> cst.Call:
        node = cst.parse_expression(code)
        assert isinstance(node, cst.Call)
        return node

    assert blocking_to_host(call('x.to(torch.device("cpu"), non_blocking=False)'))
    assert blocking_to_host(call('x.to(device=torch.device("cpu"))'))
    assert not blocking_to_host(call('x.to(torch.device("cpu"), non_blocking=True)'))
    assert not blocking_to_host(call('x.to(torch.device("cuda"))'))


def test_forwards_named_for_a_reference_are_not_hot_by_name() -> None:
    assert name_reason("forward_reference", method=True) is None
    assert name_reason("ref_forward", method=True) is None
    assert name_reason("forward", method=True) is not None
    assert name_reason("forward_prefill", method=True) is not None


def test_debugging_guards_of_calls() -> None:
    assert debug_guard(cst.parse_expression("_dump_dir is not None"))
    assert debug_guard(cst.parse_expression("self.config.debug"))
    assert not debug_guard(cst.parse_expression("self.use_cache"))


def test_install_and_storage_format_loaders_run_once() -> None:
    assert once_name("install_fp8_comms_layer_state")
    assert once_name("load_fp16")
    assert once_name("_load_fp8_scales")
    assert not once_name("load_image")
    assert not once_name("installed_count")


def test_a_list_grown_by_appending_tensors_is_no_host_data() -> None:
    """``xs: list[torch.Tensor] = []`` then ``xs.append(t)``: its display says nothing of what
    it holds (flashinfer's per-head index lists, passed on to a helper that syncs per head)."""
    context = _context(
        """
        import torch
        def plan(q2k, n):
            tensors: list[torch.Tensor] = []
            numbers = []
            for head in range(n):
                tensors.append(torch.div(q2k[head], 4, rounding_mode="floor"))
                numbers.append([head, head + 1])
            return tensors, numbers
        """
    )
    provenance, frame, value = _returned(context, "plan")
    assert isinstance(value, cst.Tuple)
    tensors, numbers = (element.value for element in value.elements)
    assert not provenance.is_host_data(tensors, frame)
    assert provenance.is_host_data(numbers, frame)

"""Session 35 (precision35): HTD101's per-device items (docs/precision.md, "Session 35
(precision35)"), each with its twin that must keep its verdict:

- ``all(x.device.type == "cuda" for x in xs)`` (or ``any``) reads as each item's device test,
  so ``if not all_cuda:`` is the fallback for tensors not all on CUDA (tensor_parallel's
  cross-device gather, reduce and all-gather), also through a flag the function computes when
  its caller leaves it out (``all_cuda=None``), and at a call of a helper whose only per-item
  loop is that fallback;
- a copy to a literal device of another accelerator (``.to("mps")``) is that backend's."""

from __future__ import annotations

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.device_branches import holds_on_cuda, only_off_cuda, other_backend_device

GATHER = """
    import torch
    def gather(tensors, destination=None, all_cuda{default}):
        if all_cuda is None:
            all_cuda = all(x.device.type == "cuda" for x in tensors)
        if destination is None:
            destination = tensors[0].device
        if {test}:
            return torch.cat([x.to(destination, non_blocking=True) for x in tensors])
        return Gather.apply(destination, 0, *tensors)
    def all_gather(tensors):
        return tuple(gather(tensors, destination=t.device) for t in tensors)
"""


def _rows(default: str = "=None", test: str = "not all_cuda") -> list[int]:
    code = GATHER.format(default=default, test=test)
    return sorted(f.start.row for f in lint(code, "HTD101"))


def test_each_items_test_reads_through_all_and_any() -> None:
    expr = cst.parse_expression
    assert only_off_cuda(expr('not all(x.device.type == "cuda" for x in xs)'))
    assert only_off_cuda(expr("any(x.is_cpu for x in xs)"))
    assert holds_on_cuda(expr("all([x.is_cuda for x in xs])"))
    assert not only_off_cuda(expr('all(x.device.type == "cuda" for x in xs)'))
    # a filtered generator tests only some items
    assert not only_off_cuda(expr("any(x.is_cpu for x in xs if x.numel())"))
    assert not holds_on_cuda(expr("all(x.is_cuda for x in xs if x.numel())"))


def test_the_fallback_for_tensors_not_all_on_cuda_is_left_alone() -> None:
    assert _rows() == []
    assert _rows(test='not all(x.device.type == "cuda" for x in tensors)') == []


def test_the_all_cuda_branch_keeps_the_per_item_copy() -> None:
    # the loop runs when every item is on CUDA, and the helper's call is a mover's
    assert _rows(test="all_cuda") == [9, 12]


def test_a_flag_the_function_does_not_fill_is_not_known() -> None:
    # `all_cuda` without a `None` default: the caller's flag, which nothing ties to the items
    assert _rows(default="=False") == [9, 12]


def test_a_literal_device_of_another_accelerator() -> None:
    expr = cst.parse_expression
    assert other_backend_device(expr('"mps"'))
    assert other_backend_device(expr('torch.device("xpu:1")'))
    assert not other_backend_device(expr('"cuda:0"'))
    assert not other_backend_device(expr('"cpu"'))
    assert not other_backend_device(expr("device"))
    code = """
        def run(model, inputs, device):
            on_mps = tuple(t.to("mps") for t in inputs)
            on_gpu = tuple(t.to("cuda") for t in inputs)
            return model(*on_mps), model(*on_gpu)
    """
    assert [f.start.row for f in lint(code, "HTD101")] == [4]

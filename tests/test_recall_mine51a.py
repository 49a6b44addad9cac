"""Session 51 (mine51a): three classes behind the misses and false alarms of the upstream fixes
mined from pull-request threads (docs/recall.md, "Session 51 (mine51a)").

- ``zip(a, b, strict=True)`` pairs the same items as ``zip(a, b)`` (the provenance of a loop
  target, and ``arguments.zip_iterables`` for ``Bindings``' zip items and three loop analyses):
  the keyword made the rows of ``zip(ids.cpu(), mask.cpu(), strict=True)`` unknown, and HTD201
  took ``c[m]`` for an index read of a device tensor (trl 1.0.0 after upstream's PR 5218).
- The bounds of a ``slice(...)`` object are read through ``__index__`` as ``x[s:e]``'s
  (``syncs._SyncFinder._size``; ms-swift 4.4.2 before upstream's PR 9795).
- A call through a local name bound to one of the module's functions, or to a wrapper of one,
  runs that function (``hot_calls.aliased_functions``; torchtitan 0.2.2's gpt-oss experts,
  ``run_experts_fn = indices_padding_wrapper(_run_experts_grouped_mm)``).
"""

from __future__ import annotations

from lint_runs import lint

STRICT_ZIP = """
import torch


class Trainer:
    def _generate(self, model, inputs):
        ids = model.generate(**inputs)
        mask = ids != 0
        host = [c[m].tolist() for c, m in zip(ids.cpu(), mask.cpu(), strict=True)]
        device = [c[m].tolist() for c, m in zip(ids, mask, strict=True)]
        return host, device

    def training_step(self, batch):
        return self._generate(self.model, batch)
"""


def _rows(code: str, *codes: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, *codes))


def test_strict_zip_rows_of_host_copies_are_host_rows() -> None:
    # the host copies' rows (line 9) are quiet; the device rows (line 10) stay reported
    assert _rows(STRICT_ZIP, "HTD201") == [10]


SLICE_OBJECT = """
import torch


def channel_loss(losses: torch.Tensor, cu_seqlens: torch.Tensor, starts: list[int]):
    out = []
    for i in range(cu_seqlens.shape[0] - 1):
        s = slice(cu_seqlens[i], cu_seqlens[i + 1])
        out.append(losses[0, s].sum())
    for i in range(len(starts) - 1):
        out.append(losses[0, slice(starts[i], starts[i + 1])].sum())
    return out
"""


def test_slice_object_bounds_are_slice_bounds() -> None:
    # the device offsets (line 8) are read per row; a Python list's (line 11) is not
    findings = lint(SLICE_OBJECT, "HTD201")
    assert [f.start.row for f in findings] == [8]
    assert "a row as a slice bound" in findings[0].message


DISPATCH = """
import torch
from torch import nn


def _run_grouped(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    offsets = torch.cumsum(counts, dim=0)
    return x[: int(offsets[-1])]


def _run_loop(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    return x[: int(counts.sum())]


def _never(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    return x[: int(counts.max())]


class Experts(nn.Module):
    def forward(self, x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        if self.grouped:
            run = padding_wrapper(_run_grouped)
        else:
            run = _run_loop
        return run(x, counts)
"""


def test_a_local_bound_to_module_functions_calls_them() -> None:
    # both functions the local may name run per forward; `_never` is no caller's
    assert _rows(DISPATCH, "HTD202") == [8, 12]


CONDITIONAL = """
import torch
from torch import nn
from functools import partial


def _fast(x: torch.Tensor, counts: torch.Tensor, scale: float) -> torch.Tensor:
    return x[: int(counts.sum())] * scale


class Experts(nn.Module):
    def forward(self, x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        run = partial(_fast, scale=2.0) if self.fast else None
        return run(x, counts)
"""


def test_an_arm_of_a_conditional_and_a_partial_are_followed() -> None:
    assert _rows(CONDITIONAL, "HTD202") == [8]


PARAMETER = """
import torch
from torch import nn


def _run(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    return x[: int(counts.sum())]


class Experts(nn.Module):
    def forward(self, x: torch.Tensor, counts: torch.Tensor, run=None) -> torch.Tensor:
        if run is None:
            run = print
        return run(x, counts)


def build(counts: torch.Tensor) -> int:
    count = _run
    return count(counts, counts).numel()
"""


def test_a_parameter_and_a_cold_caller_stay_quiet() -> None:
    # `run` is the caller's to choose; `build` runs once (no hot caller)
    assert _rows(PARAMETER, "HTD202") == []

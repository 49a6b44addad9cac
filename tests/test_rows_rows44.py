"""Session 44 (rows44): per-row syncs the upstream fixes held that HTD201 missed, each with
its look-alike that must stay clean.

- Rows of a tensor by declaration (``analysis/declared_tensors.py``): a field a class declares
  as a tensor (``cu = packed.cu_seqlens`` of a ``NamedTuple``; agilerl's packing), a slice of an
  annotated tensor parameter or arithmetic of one (``zip(sizes, cu[:-1])`` with ``sizes =
  (cu[1:] - cu[:-1]) // n``; Transformer Engine's THD split), also read by a closure.
- A row scaled by arithmetic and compared in an ``if`` (``if block >= lengths[i] * ratio:``;
  NeMo's SSL masking).
- No row read inside a function compiled into a kernel (numba's ``@cuda.jit``, triton's
  ``@triton.jit``): NeMo's RNNT numba kernels compare rows of ``torch.Tensor``-annotated arrays
  on the device.
- The recall scorer counts, for a label on a loop's header, the family rule's findings in the
  loop's body (surya 0.14.7's ``for i, seq_len in enumerate(seq_lengths):``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from lint_runs import lint

REPO = Path(__file__).resolve().parent.parent


def _rows(code: str) -> list[tuple[int, str]]:
    return sorted((f.start.row, f.message.split(" (")[0]) for f in lint(code, "HTD201"))


PACKED = """\
from typing import NamedTuple
import torch


class Packed(NamedTuple):
    cu_seqlens: torch.Tensor
    batch_size: int
{extra}

def scatter(flat: torch.Tensor, packed: {kind}):
    cu = packed.cu_seqlens
    src = []
    for b in range(packed.batch_size):
        offset = int(cu[b])
        src.append(torch.arange(offset, offset + 4, device=flat.device))
    return torch.cat(src)
"""

HOST_PACKED = """

class HostPacked(NamedTuple):
    cu_seqlens: list[int]
    batch_size: int
"""


def test_rows_of_a_declared_tensor_field_are_read() -> None:
    found = _rows(PACKED.format(extra="", kind="Packed"))
    assert [row for row, _ in found] == [14]
    assert "`int()` on each row of `cu`" in found[0][1]


def test_rows_of_a_field_declared_as_a_list_are_not() -> None:
    assert _rows(PACKED.format(extra=HOST_PACKED, kind="HostPacked")) == []


SLICES = """\
import torch


def slices(cu: {kind}, rank: int, device):
    sizes = (cu[1:] - cu[:-1]) // 4

    def process(val):
        out = []
        for size, start in zip(sizes, cu[:-1]):
            out.append(torch.arange(start + rank * size, start + size, device=device))
        return out

    return process
"""


def test_slices_and_arithmetic_of_an_annotated_tensor_walked_by_a_closure() -> None:
    found = _rows(SLICES.format(kind="torch.Tensor"))
    assert [row for row, _ in found] == [10]


def test_the_same_walk_of_a_list_parameter_is_clean() -> None:
    assert _rows(SLICES.format(kind="list[int]")) == []


MASKING = """\
import torch


class Masking(torch.nn.Module):
    def mask(self, feats: torch.Tensor, lengths: {kind}):
        out = []
        for i in range(feats.size(0)):
            if self.block_size >= lengths[i] * self.ratio:
                out.append(0)
        return out
"""


def test_a_row_scaled_and_compared_in_an_if_is_read() -> None:
    found = _rows(MASKING.format(kind="torch.Tensor"))
    message = "per-row Python overhead: a tensor as an `if` test on each row of `lengths`"
    assert found == [(8, message)]


def test_a_host_list_row_scaled_and_compared_is_clean() -> None:
    assert _rows(MASKING.format(kind="list[int]")) == []


def _score_recall() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "score_recall_rows44", REPO / "scripts" / "score_recall.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("score_recall_rows44", module)
    spec.loader.exec_module(module)
    return module


def test_scorer_counts_the_family_rule_in_a_labelled_loop_header_body() -> None:
    score = _score_recall()
    source = "x = 0\nfor i, n in enumerate(lens):\n    a.extend([i] * n)\n    b = 1\ny = 2\n"
    body = score.loop_body_span(source, 2)
    assert body == (3, 4)
    assert score.loop_body_span(source, 3) is None  # not a header

    def finding(code: str, row: int) -> dict[str, object]:
        return {"code": code, "location": {"row": row}, "end_location": {"row": row}}

    family = frozenset({"HTD201"})
    records = [finding("HTD201", 3)]
    assert score.matching_codes(records, (2, 2), 2, body, family) == {"HTD201>"}
    # another rule's finding in the body does not count, nor one after the loop
    other = [finding("HTD202", 3), finding("HTD201", 5)]
    assert score.matching_codes(other, (2, 2), 2, body, family) == set()
    # without a body (not a header), the body's finding does not count
    assert score.matching_codes(records, (2, 2), 2) == set()


KERNEL = """\
import torch
import triton


{decorator}
def alphas(durations: torch.Tensor, T: int, n: int, out: torch.Tensor):
    for i in range(n):
        if 1 + durations[i] < T:
            out[i] += 1
"""


def test_a_compiled_kernel_reads_rows_on_the_device() -> None:
    # the kernel's compare runs on the device; the same loop in host code is a read per row
    assert lint(KERNEL.format(decorator="@triton.jit"), "HTD201", "HTD202") == []
    found = lint(KERNEL.format(decorator="@torch.no_grad()"), "HTD201", "HTD202")
    assert [(f.code, f.start.row) for f in found] == [("HTD201", 8)]

"""Session 45 (mine45): megatron-core 0.18 moved its Mamba slot allocator's bookkeeping
tensors from the GPU to the CPU (``torch.full(..., device="cpu")`` in ``__init__``), and with
them the lists built into ``torch.tensor(new_bids, device=self.block_to_slot.device)``: in
0.17.1 those were pageable host-to-device copies on every prefix-cache allocation, in 0.18.2 host
constructions. HTD106 read ``x.device`` by its word and flagged both. The device of an
attribute every assignment of which in the class names the host explicitly is the host
(``analysis/host_attributes.py``); the GPU twin, an attribute also assigned without a device,
and one moved with ``.to(...)`` stay as before.

The same 0.17.1 allocator built ``torch.tensor(block_ids, device=device)`` of a parameter
annotated ``block_ids: list``: a bare list is host data as ``list[int]`` is
(``analysis/list_parameters.py``); a bare ``tuple`` (a shape) and a list of tensors are not.
"""

from __future__ import annotations

from lint_runs import lint

ALLOCATOR = """
import torch


class Slots:
    def __init__(self, n):
        self.block_to_slot = torch.full((n,), -1, dtype=torch.int32, device={device})
{extra}
    def assign(self, blocks):
        device = self.block_to_slot.device
        new_bids = []
        for b in blocks:
            new_bids.append(b + 1)
        return torch.tensor(new_bids, dtype=torch.int64, device=device)

    def evict(self, evict_ids):
        slots = self.block_to_slot[evict_ids].tolist()
        return torch.tensor(slots, dtype=torch.int64, device=self.block_to_slot.device)
"""


def _rows(device: str, extra: str = "") -> list[int]:
    code = ALLOCATOR.format(device=device, extra=extra)
    return sorted(f.start.row for f in lint(code, "HTD106"))


def test_attribute_allocated_on_the_host_builds_on_the_host() -> None:
    assert _rows('"cpu"') == []
    assert _rows('torch.device("cpu")') == []


def test_attribute_allocated_on_the_gpu_still_copies() -> None:
    assert _rows("torch.cuda.current_device()") == [14, 18]


def test_attribute_also_assigned_without_a_device_is_unproven() -> None:
    moved = "    def to(self, dev):\n        self.block_to_slot = self.block_to_slot.to(dev)\n"
    assert _rows('"cpu"', moved) == [16, 20]
    bare = "    def reset(self, n):\n        self.block_to_slot = torch.full((n,), -1)\n"
    assert _rows('"cpu"', bare) == [16, 20]


BARE_LIST = """
import torch
from typing import List, Optional


class Slots:
    def __init__(self, n):
        self.block_to_slot = torch.full((n,), -1, device=torch.cuda.current_device())

    def allocate(self, block_ids: {annotation}) -> list:
        if not block_ids:
            return []
        device = self.block_to_slot.device
        return torch.tensor(block_ids, dtype=torch.int64, device=device)
"""


def _bare_rows(annotation: str) -> list[int]:
    code = BARE_LIST.format(annotation=annotation)
    return sorted(f.start.row for f in lint(code, "HTD106"))


def test_a_parameter_annotated_as_a_bare_list_is_host_data() -> None:
    """megatron-core 0.17.1 ``allocate_slots_batch(self, block_ids: list)``: whatever the list
    holds, ``torch.tensor`` of it builds from the host."""
    for annotation in ("list", "List", "Optional[list]", "list | None"):
        assert _bare_rows(annotation) == [14], annotation


def test_a_tuple_or_an_unannotated_parameter_stays_unproven() -> None:
    for annotation in ("tuple", "object", "torch.Tensor", "list[torch.Tensor]"):
        assert _bare_rows(annotation) == [], annotation

"""Session 45 (mine45): megatron-core 0.18 moved its Mamba slot allocator's bookkeeping
tensors from the GPU to the CPU (``torch.full(..., device="cpu")`` in ``__init__``), and with
them the lists built into ``torch.tensor(new_bids, device=self.block_to_slot.device)``: in
0.17.1 those were pageable host-to-device copies on every prefix-cache allocation, in 0.18.2 host
constructions. HTD106 read ``x.device`` by its word and flagged both. The device of an
attribute every assignment of which in the class names the host explicitly is the host
(``analysis/host_attributes.py``); the GPU twin, an attribute also assigned without a device,
and one moved with ``.to(...)`` stay as before.
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

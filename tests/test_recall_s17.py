"""The facts behind session 17's per-item transfer changes (docs/recall.md, "Session 17"): KV
blocks swapped one entry at a time between a host and a device cache, and host tensors made
per item moved to another tensor's device; each beside the correct look-alike."""

from __future__ import annotations

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.item_data import built_from_item


def _findings(code: str, rule_code: str = "HTD101") -> list[tuple[int, str]]:
    return [(f.start.row, f.message) for f in lint(code, rule_code)]


ENGINE = """
    from typing import Dict, List, Tuple
    import torch

    KVCache = Tuple[torch.Tensor, torch.Tensor]

    class CacheEngine:
        def __init__(self, num_layers):
            self.num_layers = num_layers
            self.local_gpu_cache = self.allocate_gpu_cache()
            self.local_cpu_cache = self.allocate_cpu_cache()

        def allocate_gpu_cache(self):
            gpu_cache: List[KVCache] = []
            for _ in range(self.num_layers):
                key_blocks = torch.empty(size=(512, 16, 8, 128), device="cuda")
                value_blocks = torch.empty(size=(512, 16, 8, 128), device="cuda")
                gpu_cache.append((key_blocks, value_blocks))
            return gpu_cache

        def allocate_cpu_cache(self):
            cpu_cache: List[KVCache] = []
            pin_memory = True
            for _ in range(self.num_layers):
                key_blocks = torch.empty(size=(512, 16, 8, 128), pin_memory=pin_memory)
                value_blocks = torch.empty(size=(512, 16, 8, 128), pin_memory=pin_memory)
                cpu_cache.append((key_blocks, value_blocks))
            return cpu_cache

        def _swap(self, src: List[KVCache], dst: List[KVCache], src_to_dst: Dict[int, int]):
            for i in range(self.num_layers):
                src_key_cache, src_value_cache = src[i]
                dst_key_cache, dst_value_cache = dst[i]
                for src_id, dst_id in src_to_dst.items():
                    dst_key_cache[dst_id].copy_(src_key_cache[src_id])
                    dst_value_cache[dst_id].copy_(src_value_cache[src_id])

        def swap_in(self, src_to_dst):
            self._swap(self.local_cpu_cache, self.local_gpu_cache, src_to_dst)

        def swap_out(self, src_to_dst):
            self._swap(self.local_gpu_cache, self.local_cpu_cache, src_to_dst)
"""


def test_swap_in_through_a_helper_is_reported_on_the_block_loop() -> None:
    found = _findings(ENGINE)
    assert [row for row, _ in found] == [34]
    assert "host cache into a device cache" in found[0][1]


def test_swap_out_only_and_device_to_device_are_not_reported() -> None:
    out_only = ENGINE.replace(
        "self._swap(self.local_cpu_cache, self.local_gpu_cache, src_to_dst)",
        "self._swap(self.local_gpu_cache, self.local_gpu_cache, src_to_dst)",
    )
    assert _findings(out_only) == []


def test_a_cache_list_whose_placement_is_mixed_is_unknown() -> None:
    mixed = ENGINE.replace(
        "value_blocks = torch.empty(size=(512, 16, 8, 128), pin_memory=pin_memory)",
        'value_blocks = torch.empty(size=(512, 16, 8, 128), device="cuda")',
    )
    # The source list holds host keys and device values: not proven a host cache.
    assert _findings(mixed) == []


def test_other_work_in_the_block_loop_is_not_a_swap() -> None:
    busy = ENGINE.replace(
        "dst_value_cache[dst_id].copy_(src_value_cache[src_id])",
        "dst_value_cache[dst_id].copy_(src_value_cache[src_id])\n"
        "                    self.stats.update(src_id)",
    )
    assert _findings(busy) == []


def test_data_built_from_an_item() -> None:
    def built(code: str) -> bool:
        return built_from_item(cst.parse_expression(code), {"item"})

    assert built("[1] * len(item)")
    assert built("[t * 2 for t in item.ids]")
    assert built("list(item.ids)")
    assert not built("len(item)")
    assert not built("[1] * n")
    assert not built("list(other)")


def test_layers_taken_by_a_loop_over_the_cache_lists() -> None:
    zipped = ENGINE.replace(
        """            for i in range(self.num_layers):
                src_key_cache, src_value_cache = src[i]
                dst_key_cache, dst_value_cache = dst[i]
""",
        "            for (src_key_cache, src_value_cache), (dst_key_cache, dst_value_cache)"
        " in zip(src, dst):\n",
    )
    assert [row for row, _ in _findings(zipped)] == [32]

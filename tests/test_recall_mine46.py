"""Session 46 (mine46): flashinfer 0.7.0's ``batch_decode_with_paged_kv_cache`` read the device
``seq_lens_kv`` and the whole ``block_tables`` on the host on every decode call (0.7.2 only on the
allocating path, 0.7.4 never). No hot-path name covered a KV-cache op: the name of a function
that appends to, writes, updates or attends over a KV cache (``append_paged_kv_cache``,
``batch_decode_with_paged_kv_cache``, ``update_kv_cache``) says it runs per layer of every
decoding step (``analysis/kv_cache_ops.py``, asked from ``hot_names.name_reason``). A name that
allocates, sizes or saves the cache, configures an op on it, or is a driver's, stays cold.
"""

from __future__ import annotations

import pytest
from lint_runs import lint

OP = """
import torch


def {name}(q: torch.Tensor, seq_lens_kv: torch.Tensor, block_tables: torch.Tensor):
    seq_lens_host = tuple(int(value) for value in seq_lens_kv.tolist())
    rows = block_tables.tolist()
    return q, seq_lens_host, rows
"""


def _rows(name: str) -> list[int]:
    return sorted(f.start.row for f in lint(OP.format(name=name), "HTD202"))


@pytest.mark.parametrize(
    "name",
    [
        "batch_decode_with_paged_kv_cache",
        "append_paged_kv_cache",
        "nvfp4_quantize_append_paged_kv_cache",
        "update_kv_cache",
        "store_kvcache",
        "single_prefill_with_kv_cache",
    ],
)
def test_kv_cache_op_is_hot(name: str) -> None:
    assert _rows(name) == [6, 7]


@pytest.mark.parametrize(
    "name",
    [
        "allocate_kv_cache",
        "kv_cache_size",
        "save_kv_cache",
        "get_kv_cache_update",
        "init_kv_cache_update",
        "update_quant_cfg_with_kv_cache_quant",
        "emit_kv_cache_update_layer",
        "prepare_nvfp4_batch_decode_with_kv_cache_mla",
        "plan_append_kv_cache",
        "benchmark_decode_with_kv_cache",
        "reference_append_kv_cache",
        "decode_with_kv",
    ],
)
def test_other_kv_cache_names_stay_cold(name: str) -> None:
    assert _rows(name) == []


def test_a_helper_of_a_kv_cache_op_is_hot_through_its_caller() -> None:
    code = """
import torch


def _validate(lens: torch.Tensor) -> int:
    return int(lens.max().item())


def append_paged_kv_cache(k: torch.Tensor, lens: torch.Tensor):
    n = _validate(lens)
    return k[:n]
"""
    assert [f.start.row for f in lint(code, "HTD202")] == [6]

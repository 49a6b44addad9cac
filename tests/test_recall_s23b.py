"""The facts behind session 23's held-out rows (docs/recall.md, "Session 23 (heldout23b)"):
unsloth 2026.10.8's packing helpers kept one cache entry per device, hit only by the very
lengths tensor it was built from (``entry["seq_lengths"] is seq_lengths``). Such a cache spares
the layers of one step; every step's new tensor misses it, so the ``.item()`` after the lookup
runs per step. A cache whose key names the object (``(id(plan), device)``) runs once per
object, as session 10 found."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.memo_methods import memoised_by_key


def _findings(code: str, *rule_codes: str) -> list[tuple[str, int]]:
    found = lint(code, *rule_codes)
    return sorted((f.code, f.start.row) for f in found)


def _function(code: str) -> cst.FunctionDef:
    function = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(function, cst.FunctionDef)
    return function


_LAST_INPUT = """
    def packed_info(seq_lengths, device):
        entry = _CACHE.get(device)
        if entry is not None and entry["seq_lengths"] is seq_lengths:
            return entry["result"]
        result = build(seq_lengths, device)
        _CACHE[device] = {"seq_lengths": seq_lengths, "result": result}
        return result
"""


def test_a_cache_of_the_last_input_is_no_memo() -> None:
    assert not memoised_by_key(_function(_LAST_INPUT))
    # the same hit test through a key local that does not name the object
    keyed = _LAST_INPUT.replace("_CACHE.get(device)", "_CACHE.get(key)").replace(
        "        entry =", "        key = (device, 1)\n        entry =", 1
    )
    assert not memoised_by_key(_function(keyed))
    # an attribute of the entry, a tuple entry, and a third part of the hit test
    tuple_entry = """
        def lengths_of(seq_info, total):
            seq_lengths = seq_info[0]
            entry = _CACHE.get(seq_lengths.device)
            if entry is not None and entry[0] is seq_lengths and entry[1] == total:
                return entry[2]
            lengths = tuple(seq_lengths.tolist())
            _CACHE[seq_lengths.device] = (seq_lengths, total, lengths)
            return lengths
    """
    assert not memoised_by_key(_function(tuple_entry))
    # the checked object unpacked from a parameter, the key a local naming its attribute
    unpacked = """
        def cover(seq_info, total):
            _, cu_seqlens, n = seq_info
            device = cu_seqlens.device
            entry = _CACHE.get(device)
            if entry is not None and entry["cu_seqlens"] is cu_seqlens and entry["total"] == total:
                return entry["result"]
            result = total - int(cu_seqlens[-1].item())
            _CACHE[device] = {"cu_seqlens": cu_seqlens, "total": total, "result": result}
            return result
    """
    assert not memoised_by_key(_function(unpacked))


def test_a_key_that_names_the_object_is_still_a_memo() -> None:
    by_id = """
        def plan_rows(plan, device):
            key = (id(plan), device)
            cached = _ROWS.get(key)
            if cached is not None and cached[1] is plan:
                return cached[0]
            rows = build(plan)
            _ROWS[key] = (rows, plan)
            return rows
    """
    assert memoised_by_key(_function(by_id))
    # a plain key, no identity test; an identity test against None or a constant
    plain = _LAST_INPUT.replace(' and entry["seq_lengths"] is seq_lengths', "")
    assert memoised_by_key(_function(plain))
    flag = _LAST_INPUT.replace('entry["seq_lengths"] is seq_lengths', 'entry["ok"] is True')
    assert memoised_by_key(_function(flag))
    # a module's sentinel is no input of the call
    sentinel = _LAST_INPUT.replace("is seq_lengths:", "is _SENTINEL:")
    assert memoised_by_key(_function(sentinel))


def test_unsloth_packed_info_reports_the_read_per_step() -> None:
    code = """
        import torch
        _PACKED_INFO_CACHE = {}
        def get_packed_info_from_kwargs(kwargs, device):
            seq_lengths = kwargs.get("packed_seq_lengths")
            entry = _PACKED_INFO_CACHE.get(device)
            if entry is not None and entry["seq_lengths"] is seq_lengths:
                return entry["result"]
            lengths = seq_lengths.to(device = device, dtype = torch.int32, non_blocking = True)
            cu_seqlens = torch.zeros(lengths.numel() + 1, dtype = torch.int32, device = device)
            torch.cumsum(lengths, dim = 0, dtype = torch.int32, out = cu_seqlens[1:])
            max_seqlen = int(lengths.max().item())
            result = (lengths, cu_seqlens, max_seqlen)
            _PACKED_INFO_CACHE[device] = {"seq_lengths": seq_lengths, "result": result}
            return result
        def MistralAttention_fast_forward(self, hidden_states, **kwargs):
            seq_info = get_packed_info_from_kwargs(kwargs, hidden_states.device)
            return hidden_states, seq_info
    """
    assert _findings(code, "HTD202") == [("HTD202", 12)]
    # keyed by the object as well: once per object, not reported
    by_object = code.replace(
        "_PACKED_INFO_CACHE.get(device)", "_PACKED_INFO_CACHE.get((id(seq_lengths), device))"
    )
    assert _findings(by_object, "HTD202") == []


def test_items_of_a_tuple_annotated_parameter_are_tensors() -> None:
    code = """
        from typing import Optional, Tuple
        import torch
        def by_index(seq_info: Tuple[torch.Tensor, torch.Tensor, int]):
            return seq_info[0].tolist(), seq_info[-2].tolist()
        def unpacked(seq_info: Optional[Tuple[torch.Tensor, torch.Tensor, int]]):
            lengths, cu, n = seq_info
            return lengths.tolist(), int(cu[-1].item())
        def open_tuple(kv: tuple[torch.Tensor, ...]):
            return kv[3].tolist()
        def attention_forward(self, q, seq_info, kv):
            return by_index(seq_info), unpacked(seq_info), open_tuple(kv)
    """
    assert _findings(code, "HTD202") == [
        ("HTD202", 5),
        ("HTD202", 5),
        ("HTD202", 8),
        ("HTD202", 8),
        ("HTD202", 10),
    ]


def test_items_a_tuple_annotation_does_not_make_tensors() -> None:
    code = """
        from typing import Tuple
        import numpy as np
        import torch
        def host(info: Tuple[np.ndarray, torch.Tensor, int]):
            lengths, _, n = info
            return lengths.tolist(), info[0].tolist()
        def out_of_range(info: Tuple[torch.Tensor, int]):
            return info[5].tolist()
        def mismatched(info: Tuple[torch.Tensor, torch.Tensor]):
            a, b, c = info
            return a.tolist()
        def starred(info: Tuple[torch.Tensor, torch.Tensor]):
            a, *rest = info
            return a.tolist()
        def rebound(info: Tuple[torch.Tensor, int]):
            info = make_info()
            return info[0].tolist()
        def forward(self, x, info):
            return host(info), out_of_range(info), mismatched(info), starred(info), rebound(info)
    """
    assert _findings(code, "HTD202") == []

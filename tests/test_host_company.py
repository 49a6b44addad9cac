"""Session 44 (lead): a tensor a function mixes with a host-made tensor that has a dimension is
on the host, or the function raises (``analysis/host_company.py``; Transformer Engine 2.18's
``pad_thd_sequences_for_cp``). HTD201 leaves its MEDIUM rows out; the look-alikes stay."""

from __future__ import annotations

from lint_runs import lint


def _rows(body: str) -> list[int]:
    code = f"""
import torch
def pad(cu_seqlens: torch.Tensor, input_ids: torch.Tensor, factor: int):
    seqlens = cu_seqlens[1:] - cu_seqlens[:-1]
    pads = [((l.item() + factor - 1) // factor) * factor - l.item() for l in seqlens]
    sequences = [input_ids[s.item() : e.item()] for s, e in zip(cu_seqlens[:-1], cu_seqlens[1:])]
{body}
    return sequences, pads
"""
    return sorted({f.start.row for f in lint(code, "HTD201")})


def test_rows_of_an_annotated_tensor_are_reported_alone() -> None:
    assert _rows("    pass") == [5, 6]


def test_added_to_a_host_tensor_of_a_list_the_rows_are_host_rows() -> None:
    # seqlens is on the host, so is cu_seqlens it was sliced from: both loops are left out.
    assert _rows("    lengths = seqlens + torch.tensor(pads, dtype=seqlens.dtype)") == []


def test_joined_with_a_host_tensor_the_rows_are_host_rows() -> None:
    body = "    total = torch.cat([torch.tensor([0], dtype=seqlens.dtype), seqlens])"
    assert _rows(body) == []


def test_a_host_tensor_without_a_dimension_or_on_a_device_says_nothing() -> None:
    # A 0-d CPU tensor mixes with a CUDA tensor; `device=` puts the new tensor by the other.
    assert _rows("    lengths = seqlens + torch.tensor(3)") == [5, 6]
    assert _rows("    lengths = seqlens + torch.tensor(pads, device=seqlens.device)") == [5, 6]
    assert _rows("    lengths = seqlens + torch.tensor(factor)") == [5, 6]


def test_a_name_bound_twice_says_nothing_of_its_rows() -> None:
    body = "    seqlens = seqlens.cuda()\n    lengths = seqlens + torch.tensor(pads)"
    assert _rows(body) == [5, 6]


def test_rows_proven_on_the_device_stay_reported() -> None:
    code = """
import torch
def pad(x, factor: int):
    seqlens = x.cuda()
    pads = [l.item() % factor for l in seqlens]
    return seqlens + torch.tensor(pads)
"""
    assert [f.start.row for f in lint(code, "HTD201")] == [5]

"""Views of memory ``cudaHostRegister`` page-locks in place (session 43, truth43): HTD103 calls
the memory pinned, not pageable, and offers no "pin the buffer" advice; a transposed view of it
is HTD103's (staged into a differently laid destination), not HTD102's "pageable memory". The
same views of unregistered host memory keep HTD103's pageable wording and HTD102's report."""

from __future__ import annotations

from lint_runs import lint

CODE = """\
import torch
def f(dev):
    obs = torch.zeros(64, 8)
    {register}
    dst = torch.empty(8, 64, device=dev)
    dst.copy_({view}, non_blocking=True)
"""
REGISTER = "torch.cuda.cudart().cudaHostRegister(obs.data_ptr(), obs.numel() * 4, 0)"


def test_a_strided_view_of_registered_memory_is_called_pinned() -> None:
    (found,) = lint(CODE.format(register=REGISTER, view="obs[:, ::2]"), "HTD102", "HTD103")
    assert found.code == "HTD103"
    assert "pinned in place by `cudaHostRegister`" in found.message
    assert "pageable memory:" not in found.message
    assert "pin the buffer" not in found.message


def test_a_strided_view_of_unregistered_memory_stays_pageable() -> None:
    (found,) = lint(CODE.format(register="pass", view="obs[:, ::2]"), "HTD102", "HTD103")
    assert found.code == "HTD103"
    assert "a strided view of pageable memory" in found.message
    assert "pin the buffer" in found.message


def test_a_transposed_view_of_registered_memory_is_htd103s() -> None:
    found = lint(CODE.format(register=REGISTER, view="obs.T"), "HTD102", "HTD103")
    assert [f.code for f in found] == ["HTD103"]
    assert "transposed view of memory pinned in place" in found[0].message


def test_a_transposed_view_of_unregistered_memory_stays_htd102s() -> None:
    found = lint(CODE.format(register="pass", view="obs.T"), "HTD102", "HTD103")
    assert [f.code for f in found] == ["HTD102"]

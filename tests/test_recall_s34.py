"""Session 34 (recall34): ``triton.cdiv(a, b)`` is ``(a + b - 1) // b``.

fla-core 0.5.0's ``prepare_chunk_indices`` (run on every varlen forward) read
``triton.cdiv(prepare_lens(cu_seqlens), chunk_size).tolist()``: the device lengths rounded up to
chunks, read back once per call; 0.5.2 computes the chunk counts on the tensor instead. Neither
the tensor evidence nor the device fact knew that ``triton.cdiv`` of a tensor is a tensor where
its operand is, as ``a // b`` would be; of two Python ints it stays an int.
"""

from __future__ import annotations

from lint_runs import lint


def _rows(code: str, rule: str) -> list[tuple[int, str]]:
    return [(f.start.row, f.confidence.value) for f in lint(code, rule)]


def test_cdiv_of_a_device_tensor_read_back_on_a_hot_path() -> None:
    code = """
        import torch
        import triton
        class M(torch.nn.Module):
            def forward(self, x, chunk_size: int):
                lens = torch.tensor([3, 5], device="cuda")
                counts = triton.cdiv(lens, chunk_size).tolist()
                return x[: counts[0]]
    """
    assert _rows(code, "HTD202") == [(7, "high")]


def test_cdiv_of_an_annotated_tensor_is_a_tensor_of_unknown_place() -> None:
    code = """
        import torch
        import triton
        class M(torch.nn.Module):
            def forward(self, x, lens: torch.Tensor):
                return x[: triton.cdiv(lens, 64).tolist()[0]]
    """
    assert _rows(code, "HTD202") == [(6, "medium")]


def test_cdiv_of_python_ints_and_of_a_host_tensor_reads_nothing_back() -> None:
    code = """
        import torch
        import triton
        class M(torch.nn.Module):
            def forward(self, x: torch.Tensor, chunk_size: int):
                n = triton.cdiv(x.shape[1], chunk_size)
                host = triton.cdiv(torch.tensor([3, 5]), chunk_size).tolist()
                return x[:, : n + host[0]]
    """
    assert _rows(code, "HTD202") == []


def test_a_value_computed_from_a_host_named_tensor_is_taken_as_host() -> None:
    # ``prepare_lens(cu_seqlens_cpu)``: a function of the caller's host copy of the lengths;
    # the same function of the device lengths stays reported.
    code = """
        import torch
        import triton
        def prepare_lens(cu_seqlens: torch.Tensor) -> torch.Tensor:
            return torch.diff(cu_seqlens)
        class M(torch.nn.Module):
            def forward(self, x, cu_seqlens: torch.Tensor, cu_seqlens_cpu: torch.Tensor):
                host = triton.cdiv(prepare_lens(cu_seqlens_cpu), 64).tolist()
                top = int(max(prepare_lens(cu_seqlens_cpu)))
                device = triton.cdiv(prepare_lens(cu_seqlens), 64).tolist()
                return x[: host[0] + top + device[0]]
    """
    assert _rows(code, "HTD202") == [(10, "medium")]


def test_a_method_of_a_host_named_tensor_is_not_looked_through() -> None:
    # ``self.prepare(lens_cpu)`` may move it (a method of the module): only functions of the
    # project, torch, numpy and triton are followed to the tensor they compute from.
    code = """
        import torch
        class M(torch.nn.Module):
            def prepare(self, lens: torch.Tensor) -> torch.Tensor:
                return lens.to(self.target)
            def forward(self, x, lens_cpu: torch.Tensor):
                return x[: (self.prepare(lens_cpu) + 1).tolist()[0]]
    """
    assert _rows(code, "HTD202") == [(7, "medium")]


def test_a_host_named_tensor_placed_by_a_device_argument_is_not_host() -> None:
    # ``torch.as_tensor(ids_cpu, device=...)`` is where ``device`` says, whatever the name.
    code = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x, ids_cpu: torch.Tensor):
                return x[: torch.sum(torch.as_tensor(ids_cpu, device=self.target)).item()]
    """
    assert _rows(code, "HTD202") == [(5, "medium")]


def test_a_function_named_as_a_mover_is_not_looked_through() -> None:
    # ``to_device(lens_cpu)`` (a helper whose name says it moves its argument, where to is
    # not known): its result is not where ``lens_cpu`` was; ``halve(lens_cpu)``'s is.
    code = """
        import torch
        from helpers import place, split
        def to_device(t: torch.Tensor) -> torch.Tensor:
            return place(t)
        def halve(t: torch.Tensor) -> torch.Tensor:
            return split(t)
        class M(torch.nn.Module):
            def forward(self, x, lens_cpu: torch.Tensor):
                moved = to_device(lens_cpu).tolist()
                kept = halve(lens_cpu).tolist()
                return x[: moved[0] + kept[0]]
    """
    assert [row for row, _ in _rows(code, "HTD202")] == [10]

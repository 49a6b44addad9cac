"""Session 35 (recall35): four general shapes behind misses that a blind reading of serving and
model code noticed (docs/recall.md, "Session 35 (recall35)").

- HTD303: a whole-value reduction (`max`, `sum`, ...) of a device copy of host data read back
  (WhisperLive's `torch.max(torch.tensor(lens, device="cuda")).item()`): the host had the
  values. A call that may write the tensor counts only where it can reach the read.
- HTD201: a negated row as a slice bound (`h[i, -length:]`, LLM2Vec's mean pooling).
- HTD106: a device tensor read through a host index tensor per iteration (hivemind's MoE).
- HTD301: a broadcast view of a host tensor copied to the device (kornia 0.8's MixUp shape).
"""

from __future__ import annotations

from lint_runs import lint


def _rows(code: str, rule: str) -> list[tuple[int, str]]:
    return [(f.start.row, f.confidence.value) for f in lint(code, rule)]


def test_maximum_of_host_lengths_read_back_from_their_device_copy() -> None:
    code = """
        import torch
        def generate(session, ids):
            lens = torch.tensor([ids.shape[-1] for _ in range(ids.shape[0])], device="cuda")
            max_len = torch.max(lens).item()
            session.decode(ids, lens, max_len)
            return lens.sum().item()
    """
    # The second read comes after the decoder was handed `lens` (it may have written it).
    assert _rows(code, "HTD303") == [(5, "high")]


def test_reductions_that_are_not_whole_values_or_of_device_results_are_left() -> None:
    code = """
        import torch
        def f(ids, model, other):
            a = torch.tensor(ids).cuda().sum(0).tolist()
            b = torch.max(torch.tensor(ids).cuda(), other).tolist()
            c = torch.max(model(torch.tensor(ids, device="cuda"))).item()
            return a, b, c
    """
    assert _rows(code, "HTD303") == []


def test_a_write_in_a_loop_around_the_read_stops_the_trace() -> None:
    code = """
        import torch
        def f(n, steps, fill):
            counts = torch.tensor([n, 0], device="cuda")
            for _ in range(steps):
                total = counts.max().item()
                fill(counts, total)
    """
    assert _rows(code, "HTD303") == []


def test_a_negated_row_as_a_slice_bound_is_read_per_row() -> None:
    code = """
        import torch
        class Pool(torch.nn.Module):
            def forward(self, hidden, features):
                lengths = features["attention_mask"].sum(dim=-1)
                return torch.stack([hidden[i, -n:, :].mean(0) for i, n in enumerate(lengths)])
    """
    assert _rows(code, "HTD201") == [(6, "medium")]
    host = code.replace(".sum(dim=-1)", ".sum(dim=-1).tolist()")
    assert _rows(host, "HTD201") == []


def test_a_host_index_of_a_device_tensor_per_iteration() -> None:
    code = """
        import torch
        def f(x, n, device):
            h = x.to(device)
            idx = torch.arange(n)
            on_device = torch.arange(n, device=device)
            return [(h[idx], h[on_device]) for _ in range(3)]
    """
    assert _rows(code, "HTD106") == [(7, "high")]


def test_a_host_grid_column_beside_device_rows_proves_the_indexed_tensor() -> None:
    code = """
        import torch
        def gate(grid_scores, n, device):
            rows = torch.arange(n, device=device)
            grid = torch.zeros([n, len(grid_scores)], dtype=torch.int64)
            return [s[rows, col] for s, col in zip(grid_scores, grid.T)]
    """
    assert _rows(code, "HTD106") == [(6, "medium")]
    # Without the device rows, nothing says where `s` lives.
    alone = code.replace("s[rows, col]", "s[col]")
    assert _rows(alone, "HTD106") == []


def test_a_host_index_outside_loops_and_hot_paths_and_a_write_are_left() -> None:
    code = """
        import torch
        def f(x, n, device):
            h = x.to(device)
            idx = torch.arange(n)
            h[idx] = 0
            return h[idx]
    """
    assert _rows(code, "HTD106") == []


def test_a_host_broadcast_copied_to_the_device() -> None:
    code = """
        import torch
        def mix(x, weights: list[float]):
            lam = torch.tensor(weights)
            moved = lam.view(-1, 1, 1, 1).expand_as(x).to("cuda")
            fixed = lam.view(-1, 1, 1, 1).to("cuda").expand_as(x)
            return moved, fixed
    """
    assert _rows(code, "HTD301") == [(5, "high")]


def test_a_broadcast_of_unknown_placement_is_left() -> None:
    code = """
        import torch
        def merge(input_ids: torch.Tensor, embeds: torch.Tensor, image_id: int):
            mask = input_ids == image_id
            return mask.unsqueeze(-1).expand_as(embeds).to(embeds.device)
    """
    assert _rows(code, "HTD301") == []

"""The analysis facts behind session 34's blind-style triage of serving code (docs/precision.md,
"Session 34 (triage34)"), each with its twin that must keep its verdict:

- a device-named parameter that every call of its function fills with the host's device
  (``tokens.device`` of ``tokens = torch.LongTensor(ids)``: VoxCPM's prompt builders) names the
  host, so what the helper allocates on it, and what is joined with that, is on the host;
- a name a loop binds to a numpy array built from a row (WhisperLive's word durations,
  ``np.array([...])[d.nonzero()]``) is host data, not a row of a tensor."""

from __future__ import annotations

from lint_runs import lint

SPEAKER = """
    import torch
    from torch import nn
    class Speaker(nn.Module):
        def _prefix(self, n: int, device: torch.device):
            starts = torch.cat([torch.tensor([1]), torch.zeros(n, dtype=torch.long)]).to(device)
            return torch.zeros(n, dtype=torch.long, device=device), starts
        def forward(self, ids: list[int], n: int):
            tokens = torch.LongTensor(ids)
            prefix, starts = self._prefix(n, tokens.device)
            tokens = torch.cat([prefix, tokens])
            mask = torch.ones(len(tokens), dtype=torch.int32).to(tokens.device)
            return tokens, mask, starts{other}
"""


def _rows(other: str = "") -> list[tuple[str, int]]:
    code = SPEAKER.format(other=other)
    return sorted((f.code, f.start.row) for f in lint(code, "HTD104", "HTD301"))


def test_a_device_parameter_every_call_fills_with_the_hosts_is_the_host() -> None:
    assert _rows() == []


def test_one_call_with_an_accelerator_keeps_the_names_word() -> None:
    other = """
        def step(self, n: int):
            return self._prefix(n, self.device)"""
    # The helper's join is copied to what its callers pass: one passes `self.device`.
    assert ("HTD104", 6) in _rows(other)


def test_a_call_of_unknown_device_keeps_the_names_word() -> None:
    code = """
        import torch
        from torch import nn
        class Speaker(nn.Module):
            def _starts(self, n: int, device: torch.device):
                return torch.cat([torch.tensor([1]), torch.zeros(n)]).to(device)
            def forward(self, tokens: torch.Tensor, n: int):
                return self._starts(n, tokens.device)
    """
    assert [(f.code, f.start.row) for f in lint(code, "HTD104")] == [("HTD104", 6)]


ALIGN = """
    import numpy as np
    import torch
    class Aligner:
        def forward(self, tokens, features):
            alignments = self.find_alignment(tokens, features)
            for alignment in alignments:
                durations = {durations}
                durations = durations[durations.nonzero()]
                median = float({median}) if len(durations) else 0.0
                print(median)
"""


def _align_rows(durations: str, median: str) -> list[int]:
    code = ALIGN.format(durations=durations, median=median)
    return [f.start.row for f in lint(code, "HTD201")]


def test_a_numpy_array_built_from_a_row_is_host_data() -> None:
    words = '[word["end"] - word["start"] for word in alignment]'
    assert _align_rows(f"np.array({words})", "np.median(durations)") == []
    assert _align_rows(f"np.asarray({words}, dtype=np.float32)", "durations.sum()") == []


def test_a_tensor_computed_from_a_row_stays_a_row() -> None:
    # Each distinct read of the loop (session 43): the `.nonzero()` and the `float()`.
    assert _align_rows("torch.diff(alignment)", "durations.median()") == [9, 10]

"""The analysis facts behind session 30's held-out triage (docs/precision.md, "Session 30
(triage30)"): a rotary table builder whose early return tests the kept table and its length in
one ``and`` (labml's RoPE, copied into Matcha-TTS) is a table grown on demand, not per-forward
work. Each case comes with its twin that must keep its verdict."""

from __future__ import annotations

from lint_runs import lint, method_of

from h2dlint.analysis.hot_names import name_reason
from h2dlint.analysis.memo_methods import grown_cache, memoised

ROTARY = """
    import torch
    class RotaryPositionalEmbeddings(torch.nn.Module):
        def __init__(self, d, base=10000):
            super().__init__()
            self.base = base
            self.d = d
            self.cos_cached = None
        def _build_cache(self, x):
            if self.cos_cached is not None and x.shape[0] <= self.cos_cached.shape[0]:
                return
            theta = 1.0 / (self.base ** (torch.arange(0, self.d, 2).float() / self.d)).to(x.device)
            seq_idx = torch.arange(x.shape[0], device=x.device).float()
            self.cos_cached = torch.einsum("n,d->nd", seq_idx, theta).cos()
        def forward(self, x):
            self._build_cache(x)
            return x * self.cos_cached[: x.shape[0]]
    """


def _rows(code: str, rule_code: str) -> list[int]:
    return [f.start.row for f in lint(code, rule_code)]


def test_a_table_tested_and_measured_in_one_and_is_a_grown_cache() -> None:
    function, cls = method_of(ROTARY, "_build_cache")
    assert grown_cache(function, cls)
    assert memoised(function, cls)
    assert _rows(ROTARY, "HTD301") == []


def test_the_same_guard_without_keeping_the_table_is_per_call() -> None:
    code = ROTARY.replace("self.cos_cached = torch.einsum", "return torch.einsum").replace(
        "            self._build_cache(x)\n            return x * self.cos_cached",
        "            return x * self._build_cache(x)",
    )
    function, cls = method_of(code, "_build_cache")
    assert not grown_cache(function, cls)
    assert _rows(code, "HTD301") == [12]


def test_an_or_guard_is_no_cache_hit() -> None:
    """``if self.t is not None or ...: return`` returns without the table too: not a memo."""
    code = ROTARY.replace("is not None and x.shape[0]", "is not None or x.shape[0]")
    function, cls = method_of(code, "_build_cache")
    assert not grown_cache(function, cls)
    assert _rows(code, "HTD301") == [12]


def test_a_driver_named_for_attention_is_no_attention_call() -> None:
    assert name_reason("eval_llama_with_attention_sink", False) is None
    assert name_reason("benchmark_flash_attention", False) is None
    assert name_reason("_flash_varlen_attention", False) is not None
    assert name_reason("evaluate_step", False) is not None  # a step word still counts

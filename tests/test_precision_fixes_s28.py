"""Session 28's precision fixes (helper serving28, docs/precision.md, "Session 28
(serving28)"): a project function's result follows a host argument its device comes from
(``analysis/provenance/specialised.py``: eole's unit tests of the decoder's attention masks,
built on the CPU by the model's own mask builder); an optimizer's per-parameter state set up
under ``if len(state) == 0:`` stays reported (the lead reverted serving28's run-once guard)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules


def _findings(code: str, rule_code: str) -> list[int]:
    rule = all_rules()[rule_code]
    enabled = (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)
    return [f.start.row for f in check_text(textwrap.dedent(code), "m.py", enabled)]


DECODER = """
import torch


class Decoder(torch.nn.Module):
    def _mask(self, n, pad_mask):
        device = pad_mask.device
        q = torch.arange(n, device=device).view(-1, 1)
        k = torch.arange(n, device=device).view(1, -1)
        return q >= k

    def forward(self, x, pad_mask):
        return x.masked_fill(~self._mask(x.shape[-1], pad_mask), 0.0)
"""

MASK_TEST = """
import types
import unittest

import torch

from pkg.decoder import Decoder


def _mask_of(n):
    pad = torch.zeros(1, n, dtype=torch.bool{device})
    return Decoder._mask(types.SimpleNamespace(), n, pad)


class MaskTest(unittest.TestCase):
    def test_diagonal(self):
        mask = _mask_of(8)
        for q in range(8):
            self.assertTrue(mask[q, q].item())
"""


def test_a_mask_builder_given_a_host_tensor_returns_host_rows(tmp_path: Path) -> None:
    """eole 0.6.4's ``tests/test_chunk_attn_mask.py``: ``TransformerDecoder._chunk_attn_mask``
    builds its mask with ``device=tgt_pad_mask.device``; the model calls it with device
    tensors, the tests with a CPU ``tgt_pad_mask``, whose mask rows they read one by one on
    the host. The same test given a CUDA tensor stays reported."""
    from click.testing import CliRunner

    from h2dlint.cli import main

    def reports(name: str, device: str) -> bool:
        root = tmp_path / name / "pkg"
        (root / "tests").mkdir(parents=True)
        (root / "__init__.py").write_text("")
        (root / "tests" / "__init__.py").write_text("")
        (root / "decoder.py").write_text(DECODER)
        (root / "tests" / "test_mask.py").write_text(MASK_TEST.format(device=device))
        args = ["check", "--no-cache", "--select", "HTD201", "-j", "1", str(root)]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        return "test_mask.py" in result.output

    assert not reports("host", "")
    assert reports("device", ', device="cuda"')


def test_a_helper_in_the_module_follows_a_host_argument() -> None:
    """The same within one module: a helper whose other caller passes device tensors (its
    summary says the device) returns host rows to the caller that passes host ones."""
    code = """
        import torch

        def causal_mask(pad_mask):
            n = pad_mask.shape[-1]
            idx = torch.arange(n, device=pad_mask.device)
            return idx[:, None] >= idx[None, :]

        def attention_bias(scores, pad_mask):
            return scores.masked_fill(~causal_mask(pad_mask), float("-inf"))

        def window_sizes(n):
            return causal_mask(torch.zeros(1, n, dtype=torch.bool))

        def device_sizes(n):
            return causal_mask(torch.zeros(1, n, dtype=torch.bool, device="cuda"))

        def moved(n):
            return causal_mask(torch.zeros(1, n, dtype=torch.bool)).cuda()
    """
    import libcst as cst

    from h2dlint.analysis.facts import Where
    from h2dlint.analysis.provenance import Provenance
    from h2dlint.context import FileContext

    source = textwrap.dedent(code)
    module = cst.parse_module(source)
    provenance = Provenance.of(FileContext("m.py", source, module, {}))
    functions = provenance.index.functions
    assert provenance.return_fact(functions["window_sizes"]).where.on_host
    assert provenance.return_fact(functions["device_sizes"]).where is Where.DEVICE
    assert provenance.return_fact(functions["moved"]).where is Where.DEVICE
    # the helper's own summary is unchanged
    assert provenance.return_fact(functions["causal_mask"]).where is Where.DEVICE


def test_an_optimizers_state_set_up_when_empty_is_reported() -> None:
    """``if len(state) == 0: state["step"] = torch.tensor(0.0, device=p.device)`` runs once per
    parameter, on its first step: one blocking copy per parameter there. Upstream fixed it
    (ai2-olmo-core 2.1 -> 2.3, a held-out positive), so it stays reported (serving28 had made
    it run-once; the held-out score lost the positive and no corpus false alarm had this
    shape)."""
    code = """
        import torch

        class Adam(torch.optim.Optimizer):
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        if len(state) == 0:
                            state["step"] = torch.tensor(0.0, device=p.device)
                        state["step"] += 1
    """
    assert _findings(code, "HTD107") == [10]

"""The analysis facts behind the false alarms of session 13's precision triage (docs/precision.md,
seed 1313: fastvideo, moshi, chatterbox-tts, cache-dit): each look-alike the analysis must now
tell apart, and its true twin."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.env_switches import debug_only
from h2dlint.analysis.hot_names import diagnostic_name


def _findings(code: str, rule_code: str) -> list[str]:
    return [f.message for f in lint(code, rule_code)]


def _function(code: str) -> tuple[cst.Module, cst.FunctionDef]:
    module = cst.parse_module(textwrap.dedent(code))
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    return module, function


def test_debugging_and_probing_names_are_diagnostic() -> None:
    assert diagnostic_name("_debug_transformer_args")
    assert diagnostic_name("record_probe")
    assert diagnostic_name("probe_kernel")
    assert not diagnostic_name("forward")
    assert not diagnostic_name("debugger_free_step")  # a word of its own only
    assert not diagnostic_name("probability")


def test_a_function_that_returns_unless_a_debug_switch_is_on() -> None:
    on = """
        import os
        def dump(prefix, args):
            '''Log sums of the inputs.'''
            if os.getenv("PIPELINE_DEBUG_LOG", "0") != "1" or args is None:
                return
            print(args.x.sum().item())
        """
    assert debug_only(*_function(on))
    feature = on.replace("PIPELINE_DEBUG_LOG", "PIPELINE_FAST_PATH")
    assert not debug_only(*_function(feature))
    later = """
        import os
        def dump(prefix, args):
            total = args.x.sum().item()
            if os.getenv("PIPELINE_DEBUG_LOG", "0") != "1":
                return
            print(total)
        """
    assert not debug_only(*_function(later))  # the read runs before the guard


_FORWARD = """
    import torch
    {helper}
    class Model(torch.nn.Module):
        def forward(self, x: torch.Tensor):
            {call}
            return self.net(x)
    """


def test_debug_helpers_called_from_a_forward_are_cold() -> None:
    debug = _FORWARD.format(
        helper="def _debug_stats(x):\n        return x.abs().max().item()",
        call="_debug_stats(x)",
    )
    assert _findings(debug, "HTD202") == []
    plain = debug.replace("_debug_stats", "_stats")
    assert len(_findings(plain, "HTD202")) == 1


def test_a_module_offloaded_in_place_is_no_host_read() -> None:
    code = """
        import torch
        class Stage(torch.nn.Module):
            def forward(self, x: torch.Tensor):
                out = self.encoder(x)
                self.encoder.to("cpu")
                return out
        """
    assert _findings(code, "HTD202") == []
    kept = code.replace('self.encoder.to("cpu")', 'self.prev = x.to("cpu")')
    assert len(_findings(kept, "HTD202")) == 1


def test_host_offsets_through_clamp_min_are_host_rows() -> None:
    code = """
        import torch
        class Block(torch.nn.Module):
            def forward(self, tokens, counts):
                total = torch.clamp_min(counts.to("cpu"), 8)
                offsets = torch.cumsum(total, dim=0) - total
                for e in range(counts.shape[0]):
                    tokens[int(offsets[e])] = 0
                return tokens
        """
    assert _findings(code, "HTD201") == []
    device = code.replace('counts.to("cpu")', "counts.cuda()")
    assert len(_findings(device, "HTD201")) == 1

"""The analysis facts behind session 22's held-out precision fixes (helper heldout22,
docs/precision.md, "Session 22: held-out precision (helper heldout22)"): each look-alike found
in code no triage had read (outetts, StyleTTS 2), and its true twin."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.evaluation_steps import in_evaluation_hook
from h2dlint.analysis.request_drivers import request_driver


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[int]:
    return [f.start.row for f in lint(code, rule_code, path=path)]


def _class(code: str) -> cst.ClassDef:
    node = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(node, cst.ClassDef)
    return node


def _method(cls: cst.ClassDef) -> cst.FunctionDef:
    node = cls.body.body[0]
    assert isinstance(node, cst.FunctionDef)
    return node


CODEC = """
    import numpy as np
    import torch

    def normalise(audio):
        return np.clip(audio.detach().cpu().numpy(), -1, 1)

    class Codec:
        def decode(self, codes: torch.Tensor, chunk: int = 2048):
            out = []
            for i in range(0, codes.shape[-1], chunk):
                r = self.model.decode(codes[..., i:i + chunk])
                if torch.isnan(r).any():
                    r = torch.nan_to_num(r)
                out.append(r)
            return normalise(torch.cat(out, dim=-1))

    class Runner:
        def decode(self, batch):
            logits = self.model(batch.input_ids)
            return logits.argmax(-1).tolist()
"""


def test_a_decode_that_holds_the_loop_of_model_steps_runs_once_per_request() -> None:
    # outetts' DacInterface.decode: the audio copied to the host once, after the chunk loop,
    # is left; a sync inside the chunk loop stays, and so does an engine's per-step decode.
    assert _findings(CODEC, "HTD202") == [13, 21]


def test_request_drivers() -> None:
    sampler = _class(
        """
        class VSampler(Sampler):
            def forward(self, noise, fn, sigmas, num_steps):
                for i in range(num_steps - 1):
                    noise = fn(noise, sigma=sigmas[i])
                return noise
        """
    )
    assert request_driver(_method(sampler), sampler)
    # An LLM sampler's forward calls no parameter in a loop; a module's forward is no driver.
    llm = _class(
        """
        class Sampler(Module):
            def forward(self, logits, metadata):
                for processor in metadata.processors:
                    logits = processor(logits)
                return logits
        """
    )
    assert not request_driver(_method(llm), llm)
    module = _class(
        """
        class Decoder(Module):
            def forward(self, x, fn):
                for _ in range(3):
                    x = fn(x)
                return x
        """
    )
    assert not request_driver(_method(module), module)


def test_evaluation_hooks() -> None:
    module = cst.parse_module("def validation_step(b):\n    def f():\n        pass\n")
    outer = module.body[0]
    assert isinstance(outer, cst.FunctionDef)
    inner = outer.body.body[0]
    assert in_evaluation_hook([module, outer, inner])
    other = cst.parse_module("def evaluate_posterior(b):\n    pass\n").body[0]
    assert not in_evaluation_hook([other])

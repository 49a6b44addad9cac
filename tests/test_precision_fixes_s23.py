"""The analysis facts behind session 23's held-out precision fixes (helper precision23,
docs/precision.md, "Session 23 (precision23)"): the look-alike found in code no triage had read
(cosmos-predict2's preview-sample callbacks, lm-eval's Neuron backend), and their true twins."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.host_properties import host_property
from h2dlint.analysis.request_drivers import runs_generations


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[int]:
    return [f.start.row for f in lint(code, rule_code, path=path)]


def _function(code: str) -> cst.FunctionDef:
    module = cst.parse_module(textwrap.dedent(code))
    node = module.body[-1]
    if isinstance(node, cst.ClassDef):
        node = node.body.body[0]
    assert isinstance(node, cst.FunctionDef)
    return node


CALLBACK = """
    import torch

    class EveryNDrawSample(EveryN):
        def sample(self, trainer, model, data_batch, output_batch, loss, iteration):
            to_show = []
            for guidance in self.guidance:
                sample = model.generate_samples_from_batch(data_batch, guidance=guidance)
                if hasattr(model, "decode"):
                    sample = model.decode(sample)
                to_show.append(sample.float().cpu())
            to_show.append(data_batch["video"].float().cpu())
            self.draw(to_show, iteration)
"""

STEP = """
    import torch

    class Engine:
        def sample(self, batch):
            logits = self.model(batch.input_ids)
            return logits.argmax(-1).cpu()
"""

CHUNKED = """
    import torch

    class Codec:
        def decode(self, codes, chunk=2048):
            out = []
            for i in range(0, codes.shape[-1], chunk):
                r = self.model.decode(codes[..., i:i + chunk])
                if torch.isnan(r).any():
                    r = torch.nan_to_num(r)
                out.append(r)
            return torch.cat(out, -1)
"""


def test_a_sample_that_calls_a_generation_entry_runs_whole_generations() -> None:
    assert runs_generations(_function(CALLBACK))
    assert runs_generations(_function("def decode(self, x):\n    return self.model.generate(x)\n"))


def test_a_step_or_a_chunk_loop_is_no_generation_run() -> None:
    assert not runs_generations(_function(STEP))
    assert not runs_generations(_function(CHUNKED))
    # a generation entry of something that is not the model, or under another name
    other = "def sample(self, x):\n    return self.cfg.generate(x)\n"
    forward = "def forward(self, x):\n    return self.model.generate(x)\n"
    assert not runs_generations(_function(other))
    assert not runs_generations(_function(forward))


MIXIN = """
    import torch

    class RemoteGenerationMixin:
        def generate(self, inputs, eos_token_id=None):
            outputs = [inputs]
            while True:
                logits = self.lm_head(self.transformer(outputs[-1]))
                last = logits.argmax(-1)
                outputs.append(last)
                if torch.all(last == eos_token_id):
                    break
            return torch.cat(outputs, dim=-1)

        def sample(self, input_ids, temperature=1.0):
            return self.generate(input_ids)
"""


def test_a_mixins_sample_alias_of_its_own_generate_stays_an_entry() -> None:
    module = cst.parse_module(textwrap.dedent(MIXIN))
    cls = module.body[-1]
    assert isinstance(cls, cst.ClassDef)
    sample = cls.body.body[1]
    assert isinstance(sample, cst.FunctionDef)
    assert not runs_generations(sample)
    assert _findings(MIXIN, "HTD201") + _findings(MIXIN, "HTD202") != []


def test_preview_callback_copies_are_not_reported() -> None:
    assert _findings(CALLBACK, "HTD202") == []


def test_per_step_sample_and_chunk_loop_stay_reported() -> None:
    assert _findings(STEP, "HTD202") == [7]
    assert _findings(CHUNKED, "HTD202") == [9]


NEURON = """
    import torch

    class NeuronLM:
        @property
        def device(self):
            return "cpu"

        def loglikelihood(self, requests):
            for context_enc, continuation_enc in requests:
                inp = torch.tensor(
                    (context_enc + continuation_enc)[-(self.max_length + 1) :][:-1],
                    dtype=torch.long,
                    device=self.device,
                )
                self.model(inp)
"""


def _class(code: str) -> cst.ClassDef:
    node = cst.parse_module(textwrap.dedent(code)).body[-1]
    assert isinstance(node, cst.ClassDef)
    return node


def test_a_device_property_returning_the_host_is_the_host() -> None:
    assert host_property(_class(NEURON), "device")
    runner = """
        import torch
        class Runner:
            @property
            def device(self):
                return torch.device("cpu")
    """
    assert host_property(_class(runner), "device")
    assert _findings(NEURON, "HTD106") == []


def test_a_device_property_that_may_name_an_accelerator_stays_a_device() -> None:
    mixed = """
        class LM:
            @property
            def device(self):
                if self.neuron:
                    return "cpu"
                return self._device
    """
    assert not host_property(_class(mixed), "device")
    plain = """
        class LM:
            def device(self):
                return "cpu"
    """
    assert not host_property(_class(plain), "device")  # a method, not a property
    accelerator = NEURON.replace('return "cpu"', 'return "cuda"')
    assert _findings(accelerator, "HTD106") == [11]

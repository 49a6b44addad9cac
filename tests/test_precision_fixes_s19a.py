"""The analysis facts behind session 19's held-out precision fixes (helper heldout19a,
docs/precision.md, "Session 19: held-out precision (helper heldout19a)"): each look-alike
found in code no triage had read (optimum-habana, ipex-llm, invokeai, auto-gptq, lade), and
its true twin."""

from __future__ import annotations

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.step_drivers import drives_steps, model_call


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[int]:
    return [f.start.row for f in lint(code, rule_code, path=path)]


GENERATION = """
    import torch

    class GaudiGenerationMixin:
        def generate(self, inputs_tensor, generation_config):
            token_idx = inputs_tensor.shape[1]
            kwargs = {"token_idx": torch.tensor(token_idx, device=inputs_tensor.device)}
            return self._sample(inputs_tensor, **kwargs)

        def _beam_search(self, input_ids, steps):
            beam_trace_idx = torch.tensor(0, device=input_ids.device)
            while steps:
                outputs = self(input_ids)
                if outputs.logits.shape[-2] > 1:
                    idx = torch.tensor(outputs.logits.shape[-2], device=input_ids.device)
                steps -= 1
            return beam_trace_idx, idx

    def generate_speech(model, output_sequence, maxlen):
        token_idx = torch.tensor(1, device=output_sequence.device)
        while maxlen:
            out = model.speecht5.decoder.prenet(output_sequence)
            maxlen -= 1
        return out, token_idx

    def generate_after_prefill(model, prompt, n):
        token = model(prompt)
        input_pos = torch.tensor([prompt.shape[-1]], device=prompt.device)
        while n:
            token = model(token, input_pos)
            n -= 1
        return token

    def sum_batches(batches):
        total = torch.tensor(len(batches), device=batches[0].device)
        for b in batches:
            total += b.sum()
        return total
    """


def test_set_up_of_a_function_that_drives_the_model_steps_runs_once_per_request() -> None:
    # optimum-habana's generate(), _beam_search() and generate_speech(): their set-up before
    # the decoding loop. The loop's own copy stays, and a loop that calls no model (a
    # reduction over batches) does not make its function a driver of steps, and set-up after
    # the model's first call (a prefill: fish-speech's and litgpt's generate) waits for it.
    # (The reduction's function is not named for collation: since session 50, fp101_50, a
    # batch's device in a collate function is the host's.)
    assert _findings(GENERATION, "HTD107") == [15, 28, 35]


def test_model_calls() -> None:
    def call(text: str) -> cst.Call:
        node = cst.parse_expression(text)
        assert isinstance(node, cst.Call)
        return node

    for text in ("self(x)", "model(x)", "draft_model(x)", "model.decoder.prenet(x)"):
        assert model_call(call(text)), text
    for text in ("self.model(x)", "self.unet(x)", "self.forward(x)", "self.transformer(x)"):
        assert model_call(call(text)), text
    for text in ("self.helper(x)", "torch.cat(x)", "b.sum()", "self.text_encoder(x)"):
        assert not model_call(call(text)), text
    function = cst.parse_module("def f(m):\n    def g():\n        for _ in x:\n            m(1)\n")
    assert not drives_steps(function.body[0])  # type: ignore[arg-type]


LAZY_BUFFER = """
    import torch

    class MoE(torch.nn.Module):
        def forward(self, x):
            if getattr(self, "gates", None) is None:
                addrs = [e.gate.weight.data_ptr() for e in self.experts]
                self.register_buffer("gates", torch.tensor(addrs, device=x.device))
            if getattr(self, "ups", None) is None:
                ups = [e.up.weight.data_ptr() for e in self.experts]
                setattr(self, "ups", torch.tensor(ups, device=x.device))
            if getattr(self, "downs", None) is None:
                downs = [e.down.weight.data_ptr() for e in self.experts]
                self.other = torch.tensor(downs, device=x.device)
            return x
    """


def test_a_getattr_guard_whose_body_registers_the_attribute_runs_once() -> None:
    # ipex-llm's DeepSeek MoE: expert weight addresses made once, registered as buffers. A
    # guard of another attribute than the body sets still runs every call.
    assert _findings(LAZY_BUFFER, "HTD106") == [14]


ROWS = """
    import torch

    def add_lora(x: torch.Tensor, result: torch.Tensor, im_mask: torch.Tensor = None):
        if isinstance(im_mask, torch.Tensor) or len(im_mask) == 0:
            return result
        for start, end in im_mask:
            result[:, start:end, :] += x[:, start:end, :]
        return result

    def add_lora_tensor(x: torch.Tensor, result: torch.Tensor, im_mask: torch.Tensor = None):
        if not isinstance(im_mask, torch.Tensor) and len(im_mask) == 0:
            return result
        for start, end in im_mask:
            result[:, start:end, :] += x[:, start:end, :]
        return result
    """


def test_rows_after_an_or_of_a_type_test_are_no_tensor_rows() -> None:
    # ipex-llm's InternLM-XComposer add_lora: im_mask is a list of (start, end) pairs there.
    # An `and` with `not isinstance` says nothing about the code after it.
    assert _findings(ROWS, "HTD201") == [15]


CONFIG_FIELD = """
    import torch

    def load_balancing_loss_func(gate_logits: torch.Tensor, num_experts: torch.Tensor = None):
        probs = gate_logits.softmax(-1)
        return probs.reshape(-1, num_experts).mean(0)

    class ArcticMoE(torch.nn.Module):
        def __init__(self, config):
            super().__init__()
            self.num_experts = config.num_local_experts

        def forward(self, x):
            logits = self.gate(x)
            return x, load_balancing_loss_func(logits, self.num_experts)
    """


def test_a_config_field_passed_for_a_tensor_annotated_size_is_a_number() -> None:
    # optimum-habana's Arctic: num_experts annotated torch.Tensor, given config's int.
    assert _findings(CONFIG_FIELD, "HTD202") == []
    twin = CONFIG_FIELD.replace(
        "logits = self.gate(x)", "self.num_experts = x.max()\n            logits = self.gate(x)"
    )
    assert _findings(twin, "HTD202") == [6]


DECODE = """
    import torch

    class Engine:
        def process_step(self, tokenizer, cur_id):
            next_ids = self.model(self.inputs[cur_id]).argmax(-1)
            self.tokens[cur_id].append(next_ids)
            self.stream(tokenizer.decode(next_ids.cpu()))
            if len(self.tokens[cur_id]) >= self.max_tokens:
                outputs = torch.cat(self.tokens[cur_id], dim=1)
                outputs = outputs.cpu()
                self.results[cur_id] = tokenizer.batch_decode(outputs)
    """


def test_a_whole_sequence_joined_and_decoded_once_is_not_a_step_sync() -> None:
    # ipex-llm's pipeline-parallel process_step: a finished batch's kept tokens, decoded. The
    # step's own new tokens decoded every step stay reported.
    assert _findings(DECODE, "HTD202") == [8]


PROBE = """
    import torch

    class M(torch.nn.Module):
        def forward(self, x):
            try:
                torch.tensor([1.0], dtype=torch.bfloat16, device=x.device)
                dtype = torch.bfloat16
            except TypeError:
                dtype = torch.float16
            try:
                one = torch.tensor([1.0], dtype=torch.bfloat16, device=x.device)
            except TypeError:
                one = 1.0
            return x.to(dtype) * one
    """


def test_a_tensor_thrown_away_in_a_try_body_is_a_probe() -> None:
    # invokeai's choose_bfloat16_safe_dtype; a tensor kept from the try stays reported.
    assert _findings(PROBE, "HTD107") == [12]

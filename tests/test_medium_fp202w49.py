"""HTD202 false alarms, session 49 (fp202w49): a decoding loop that feeds its model tensors it
makes on the host every step.

optimum-executorch 1.1.0's seq2seq ``generate`` (``modeling.py:557``, ``:1116``), its exported
T5 decoder's loop (``integrations.py:963``) and ExecuTorch 1.5.1's QNN T5 and Whisper examples
and LLaVA ``.pte`` test read ``torch.argmax(logits[:, -1, :]).item()`` in a ``for i in
range(n):`` loop around the model: ``model_steps_reason`` took the loop for a decoding loop on the
device. Each iteration hands the model ``torch.tensor([i], dtype=torch.long)`` and the next ids
``torch.tensor([[next_token]])``, made on the host, and nothing in the loop names a device: the
model (an ExecuTorch program, an exported graph) runs on the host, and its logits are host
tensors. ``analysis/host_fed_steps.py`` says so; a tensor made with ``device=``, one moved in the
loop, or a loop whose model only gets what was moved before it keep the reason.
"""

from __future__ import annotations

import pytest
from lint_runs import lint

HOST_FED = """\
import torch


class Seq2Seq:
    def generate(self, input_ids, max_seq_len):
        decoder_input_ids = torch.tensor([[0]], dtype=torch.long)
        generated = []
        for i in range(max_seq_len - 1):
            {position}
            logits = self.forward(input_ids, decoder_input_ids, cache_position)
            next_token = torch.argmax(logits[:, -1, :], dim=-1).item()
            generated.append(next_token)
            decoder_input_ids = {next_ids}
        return generated
"""


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD202"))


def test_a_loop_feeding_its_model_host_tensors_is_no_device_step() -> None:
    code = HOST_FED.format(
        position="cache_position = torch.tensor([i], dtype=torch.long)",
        next_ids="torch.tensor([[next_token]], dtype=torch.long)",
    )
    assert _rows(code) == []


def test_the_host_tensor_inline_in_a_tuple_of_a_runtime_call_counts() -> None:
    code = """\
import torch


def run_pte(module, start, n, tokens):
    for i in range(n):
        logits = module.run_method("decoder", (torch.tensor([start + i]), tokens))[0]
        tokens.append(torch.argmax(logits[..., -1, :]).item())
        print(model.tokenizer.decode(tokens[-1]))
"""
    assert _rows(code) == []


@pytest.mark.parametrize(
    ("position", "next_ids"),
    [
        # made on the device
        (
            "cache_position = torch.tensor([i], device=input_ids.device)",
            "torch.tensor([[next_token]], device=input_ids.device)",
        ),
        # moved there in the loop
        (
            "cache_position = torch.tensor([i]).to(input_ids.device)",
            "torch.tensor([[next_token]]).cuda()",
        ),
        # a 0-d host scalar mixes with device tensors: no proof
        ("cache_position = torch.tensor(i)", "decoder_input_ids[:, -1:]"),
    ],
)
def test_a_step_input_made_on_or_moved_to_the_device_keeps_the_loop(
    position: str, next_ids: str
) -> None:
    assert _rows(HOST_FED.format(position=position, next_ids=next_ids)) == [11]

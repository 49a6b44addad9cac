"""The analysis facts behind session 42's blind-style triage (docs/precision.md, "Session 42
(triage42a)"), with the twins that must keep their verdict. What a model held in a
parameter or local named for one returns (``teacher_out = model.teacher(**inputs)``,
``outs = model(**batch)``, ``model.module(x)``) is made where the model ran: moving the items
of one of its fields one by one to another device (AMD Quark's distillation trainer) copies
no host data; a name that says host work or a host model (``cpu_model``, ``processor``), a
function of the module that builds a model (``build_model(cfg)(x)``) and a method named for
data (``model.load_data(x)``) stay reported. The pairs of ``zip(*logprobs.topk(k))`` are rows
of ``logprobs`` (Whisper's beam search reads each candidate's token and score: a miss before).
A warm-up body that clears its buffer flag (``self._warmup_enable[0] = 0``) runs once."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

TRAINER = """
import torch


def build_model(cfg):
    return cfg


def training_step(model, inputs, cfg, processor, device):
    for _ in range(10):
        {bind}
        moved = [a.to(device) for a in out.attentions]
        print(moved)
"""


def test_items_of_a_named_models_output_are_on_its_device(tmp_path: Path) -> None:
    for bind in (
        "out = model.teacher(**inputs)",
        "out = model(**inputs)",
        "out = model.module(inputs)",
        "out = model.forward(inputs)",
    ):
        assert cli_rows(tmp_path, TRAINER.format(bind=bind), "HTD101") == [], bind


def test_host_work_and_builders_stay_reported(tmp_path: Path) -> None:
    for bind in (
        "cpu_model = model.cpu()\n        out = cpu_model(**inputs)",
        "out = build_model(cfg)(inputs)",
        "out = processor(inputs)",
        "out = model.load_data(inputs)",
        "out = model.predict(inputs)",
    ):
        rows = cli_rows(tmp_path, TRAINER.format(bind=bind), "HTD101")
        assert len(rows) == 1, bind


BEAM = """
import torch
from torch import Tensor


class BeamSearchDecoder:
    def update(self, tokens: Tensor, logits: Tensor):
        logprobs = torch.log_softmax(logits.float(){host}, dim=-1)
        scores = {{}}
        for i in range(tokens.shape[0]):
            for logprob, token in zip(*{pair}):
                scores[token.item()] = logprob
        return scores

    def forward(self, tokens, logits):
        return self.update(tokens, logits)
"""


def test_pairs_of_topk_are_rows_of_its_tensor(tmp_path: Path) -> None:
    """Whisper's beam search: ``token.item()`` per candidate of ``zip(*logprobs[i].topk(k))``
    (values and indices made where ``logprobs`` is) is one sync per candidate (a miss before)."""
    for pair in ("logprobs[i].topk(5)", "torch.topk(logprobs[i], 5)", "logprobs[i].sort(-1)"):
        rows = cli_rows(tmp_path, BEAM.format(host="", pair=pair), "HTD201")
        assert rows == [12], pair  # the loop's line
    # Log-probabilities copied to the host first: host rows, nothing to sync.
    host = BEAM.format(host=".cpu()", pair="logprobs[i].topk(5)")
    assert cli_rows(tmp_path, host, "HTD201") == []
    # ``max()`` without a dimension is one 0-d tensor, no (values, indices) pair to walk.
    assert cli_rows(tmp_path, BEAM.format(host="", pair="logprobs[i].max()"), "HTD201") == []


OBSERVER = """
import numpy as np
import torch
from torch import nn


class TQTObserver(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("_warmup_enable", torch.tensor([1], dtype=torch.uint8))

    def forward(self, x_orig: torch.Tensor) -> torch.Tensor:
        if self._warmup_enable[0] == 1:
            data = x_orig.cpu().numpy()
            self.threshold = float(np.std(data))
            {clear}
        return x_orig
"""


def test_a_warm_up_that_clears_its_buffer_flag_runs_once(tmp_path: Path) -> None:
    """AMD Quark's TQT observer: the flag's test syncs every forward (reported), the body
    that clears it runs on the first forward only."""
    cleared = OBSERVER.format(clear="self._warmup_enable[0] = 0")
    assert cli_rows(tmp_path, cleared, "HTD202") == [13]
    # A flag the body leaves set (toggled elsewhere, if at all): the copy runs every forward.
    kept = OBSERVER.format(clear="pass")
    assert cli_rows(tmp_path, kept, "HTD202") == [13, 14]

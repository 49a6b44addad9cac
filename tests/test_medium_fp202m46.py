"""HTD202 false alarms, session 46 (fp202m46): an evaluation pass's results copied to the host.

The evaluation arm of a ``forward`` that tests ``self.training`` (stanza's dependency parser
returns its scores as numpy for the host MST decoder; FunASR's and ESPnet's ASR models hand
their hypotheses to a host error calculator for the validation CER) and a hand-written
evaluation loop (``validate``/``evaluate``: BigVGAN's PESQ input, text2vec's collected
predictions): ``analysis/evaluation_passes.py``. Their look-alikes stay reported: the training
arm, a copy used as the input of more device work (``lengths.cpu()`` for packing), a copy
handed to another helper (a plot), ``.item()``, and an evaluation loop's copy of a tensor
proven on the device.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import lint, lint_project, write_files

# A parser whose scores a trainer module moves to the device (the project says the forward's
# tensors are tensors): the base reports the copies of the evaluation arm.
PARSER = """\
import torch
import torch.nn.functional as F
from torch import nn
class Parser(nn.Module):
    def forward_scores(self, word, head):
        unlabeled_scores = self.unlabeled(word).squeeze(3)
        deprel_scores = self.deprel(word)
        diag = torch.eye(head.size(-1) + 1, dtype=torch.bool, device=head.device).unsqueeze(0)
        unlabeled_scores.masked_fill_(diag, -float("inf"))
        return unlabeled_scores, deprel_scores
    def forward(self, word, head):
        unlabeled_scores, deprel_scores = self.forward_scores(word, head)
        preds = []
        if {test}:
            {first}
        else:
            {second}
        return loss, preds
"""

TRAINER = """\
from pkg.model import Parser
class Trainer:
    def __init__(self, device):
        self.model = Parser().to(device)
    def predict(self, batch):
        self.model.eval()
        loss, preds = self.model(batch.word, batch.head)
        return preds
"""

TRAIN = "loss = self.crit(deprel_scores, head)"
OUT = "preds.append(F.log_softmax(unlabeled_scores, 2).detach().cpu().numpy())"
ARGMAX = "preds.append(deprel_scores.max(3)[1].detach().cpu().numpy() + 3)"
CER = "cer = self.error_calculator(deprel_scores.max(3)[1].cpu(), head)"
PACKED = "lengths = deprel_scores.sum(3).cpu()"


def _rows(tmp_path: Path, test: str, first: str, second: str) -> list[int]:
    model = PARSER.format(test=test, first=first, second=second)
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": model, "pkg/trainer.py": TRAINER})
    return [r["location"]["row"] for r in lint_project(tmp_path, "HTD202")]


@pytest.mark.parametrize("line", [OUT, ARGMAX, CER])
@pytest.mark.parametrize("test", ["self.training", "self.training or self.calculator is None"])
def test_the_else_of_a_training_test_is_the_evaluations_output(
    tmp_path: Path, test: str, line: str
) -> None:
    assert _rows(tmp_path, test, TRAIN, line) == []


@pytest.mark.parametrize("line", [OUT, CER])
@pytest.mark.parametrize("test", ["not self.training", "not self.training and self.calc"])
def test_the_body_of_a_negated_training_test_is_the_evaluations_output(
    tmp_path: Path, test: str, line: str
) -> None:
    assert _rows(tmp_path, test, line, TRAIN) == []


def test_the_training_arms_copy_stays_reported(tmp_path: Path) -> None:
    assert _rows(tmp_path, "self.training", OUT, TRAIN) == [15]


@pytest.mark.parametrize(
    "test", ["self.use_cache", "self.training and self.calc", "not self.training or self.calc"]
)
def test_an_arm_that_may_run_in_training_stays_reported(tmp_path: Path, test: str) -> None:
    assert _rows(tmp_path, test, TRAIN, OUT) == [17]


@pytest.mark.parametrize(
    "line",
    [
        PACKED,  # more device work's input (bound, not a host array)
        "loss = self.rnn(word, deprel_scores.sum(3).cpu())",  # another call's input
        "loss = deprel_scores.sum(3).cpu().size(0)",  # a size
    ],
)
def test_an_evaluation_arms_copy_that_is_no_output_stays_reported(
    tmp_path: Path, line: str
) -> None:
    assert _rows(tmp_path, "self.training", TRAIN, line) == [17]


EVALUATE = """\
import torch
def {name}(model, loader, device):
    preds = []
    for x, y in loader:
        out = torch.sigmoid(model(x.to(device)))
        {line}
    return preds
"""


@pytest.mark.parametrize("name", ["evaluate", "validate", "_validate", "run_evaluation"])
@pytest.mark.parametrize(
    "line",
    [
        "preds.extend(out.cpu().numpy())",
        "pred = out.cpu()\n        preds.append(pred)",
        "score = pesq(16000, y.numpy(), (out[0] * 32767).short().cpu().numpy())",
    ],
)
def test_an_evaluation_loops_output_copy_is_its_purpose(name: str, line: str) -> None:
    assert lint(EVALUATE.format(name=name, line=line), "HTD202") == []


@pytest.mark.parametrize(
    ("name", "line"),
    [
        # not named for an evaluation pass
        # (a loop over a loader collecting each batch's output in a function of any other
        # name is a pass over batches since session 47: batch_outputs, consist47)
        ("train_epoch", "preds.extend(out.cpu().numpy())"),
        # a read of one value, and a copy handed to a project helper (a plot)
        ("evaluate", "preds.append(out.sum().item())"),
        ("evaluate", "preds.append(plot_spectrogram_to_numpy(out[0].cpu().numpy()))"),
    ],
)
def test_evaluation_loop_look_alikes_stay_reported(name: str, line: str) -> None:
    assert lint(EVALUATE.format(name=name, line=line), "HTD202") != []


def test_an_evaluation_loops_copy_of_a_proven_device_tensor_stays_reported() -> None:
    code = EVALUATE.format(
        name="evaluate", line="labels = y.to(device)\n        preds.extend(labels.cpu().numpy())"
    )
    assert lint(code, "HTD202") != []

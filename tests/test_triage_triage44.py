"""The analysis fact behind session 44's blind-style triage (docs/precision.md, "Session 44
(triage44)"), with the look-alikes that must keep their verdict.

A loop that tests its key for membership in the indexed value (``if prop in model_results:
model_results[prop].detach().cpu()``, SchNetPack's batchwise calculator) picks named outputs
out of a dict, each copied whole once, not rows out of a tensor (analysis/keyed_outputs.py); a
membership test in another container, or a scalar ``.item()`` of each entry, leaves HTD201's
finding."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

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

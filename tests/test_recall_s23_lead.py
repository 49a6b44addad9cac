"""Session 23 (lead): an attribute updated in place (``self.ptr += 1``) keeps its fact."""

from __future__ import annotations

import pytest
from lint_runs import lint


def _findings(code: str, rule_code: str) -> list[tuple[int, str]]:
    found = lint(code, rule_code)
    return [(f.start.row, f.confidence.value) for f in found if f.code == rule_code]


TRAINER = """
    import torch

    class Trainer:
        def __init__(self, model, optimizer):
            self.model = model
            self.optimizer = optimizer
            self.ptr = {made}

        def training_step(self, batch):
            loss = self.model(batch).sum()
            loss.backward()
            self.optimizer.step()
            pos = self.ptr.item()
            self.ptr {update}
            return pos
    """


@pytest.mark.parametrize("update", ["+= 1", "-= 1", "*= 2", "+= torch.ones_like(self.ptr)"])
def test_a_device_counter_updated_in_place_stays_on_the_device(update: str) -> None:
    made = 'torch.zeros((), dtype=torch.long, device="cuda")'
    assert _findings(TRAINER.format(made=made, update=update), "HTD202") == [(14, "high")]


def test_a_host_counter_updated_in_place_stays_on_the_host() -> None:
    made = "torch.zeros((), dtype=torch.long)"
    assert _findings(TRAINER.format(made=made, update="+= 1"), "HTD202") == []


def test_a_number_updated_with_a_tensor_is_not_taken_for_a_tensor_of_either_kind() -> None:
    # ``self.total = 0.0; self.total += loss`` makes a tensor where ``loss`` is: nothing known.
    code = """
        import torch

        class Trainer:
            def __init__(self):
                self.total = 0.0

            def training_step(self, batch):
                loss = self.model(batch).sum()
                self.total += loss
                return self.total.item()
        """
    assert all(confidence != "high" for _, confidence in _findings(code, "HTD202"))


def test_an_attribute_also_assigned_unknown_values_stays_unknown() -> None:
    code = """
        import torch

        class Trainer:
            def __init__(self):
                self.ptr = torch.zeros((), device="cuda")

            def reset(self, value):
                self.ptr = value

            def training_step(self, batch):
                self.ptr += 1
                return self.ptr.item()
        """
    assert all(confidence != "high" for _, confidence in _findings(code, "HTD202"))

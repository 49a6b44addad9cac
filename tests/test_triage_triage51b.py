"""The analysis facts behind session 51's blind-style triage of model code never read
(docs/precision.md, "Session 51 (triage51b)"), each with the look-alike that must keep its
verdict:

- a local flag bound to a periodic test (``is_log_step = self.log_freq > 0 and (step %
  self.log_freq == 0)``) gates its ``if`` body to one step in N, also as an operand of an
  ``and`` (neuracore 19.0.0 ``ml/trainers/distributed_trainer.py:298``:
  analysis/hot_guards.py, ``periodic_flag``);
- the items of a field annotated as objects of a batch class (``inputs: dict[DataType,
  list[BatchedNCData]]``) are whole batches, one move each (neuracore
  ``ml/core/ml_types.py:39``: analysis/batch_items.py)."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

TRAINER = """
import torch


def train(model, loader, opt, log_freq, pbar, show, history):
    step = 0
    for batch in loader:
        loss = model(batch).mean()
        loss.backward()
        opt.step()
        is_log_step = log_freq > 0 and (step % log_freq == 0)
        if GATE:
            history.append(loss.item())
        step += 1
"""


def test_a_flag_bound_to_a_periodic_test_gates_its_body(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, TRAINER.replace("GATE", "is_log_step"), "HTD202") == []


def test_a_periodic_flag_as_an_operand_of_and_gates_its_body(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, TRAINER.replace("GATE", "show and is_log_step"), "HTD202") == []


def test_a_periodic_flag_in_an_or_still_runs_every_step(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, TRAINER.replace("GATE", "show or is_log_step"), "HTD202") == [13]


def test_a_negated_periodic_flag_is_the_other_steps(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, TRAINER.replace("GATE", "not is_log_step"), "HTD202") == [13]


def test_a_flag_bound_to_another_test_still_runs_every_step(tmp_path: Path) -> None:
    text = TRAINER.replace("(step % log_freq == 0)", "show").replace("GATE", "is_log_step")
    assert cli_rows(tmp_path, text, "HTD202") == [13]


SAMPLES = """
from dataclasses import dataclass

import torch


@dataclass
class ITEMS:
    frames: torch.Tensor

    def to(self, device):
        return ITEMS(self.frames.to(device))


@dataclass
class TrainingSamples:
    inputs: dict[str, list[ITEMS]]
    tensors: list[torch.Tensor]

    def to(self, device):
        return TrainingSamples(
            inputs={key: [item.to(device) for item in value] for key, value in self.inputs.items()},
            tensors=[t.to(device) for t in self.tensors],
        )
"""


def test_items_annotated_as_batch_objects_are_whole_batches(tmp_path: Path) -> None:
    # ``self.tensors``' items are tensors: still one copy each, still reported.
    assert cli_rows(tmp_path, SAMPLES.replace("ITEMS", "BatchedData"), "HTD101") == [23]


def test_items_annotated_as_sample_objects_are_still_items_to_batch(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, SAMPLES.replace("ITEMS", "Sample"), "HTD101") == [22, 23]

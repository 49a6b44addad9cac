"""The analysis fact behind session 47's blind-style triage (docs/precision.md, "Session 47
(triage47b)"), with the look-alikes that must keep their verdict.

lucidrains' packages gate a training loop's logging with ``if divisible_by(step, 10):``, their
helper for ``step % 10 == 0`` (rectified-flow-pytorch 0.14.0 ``soflow.py:484``): a read under it
runs once every ten steps, as under the modulo (analysis/divisible_gates.py). The same helper
on a shape (``divisible_by(seq_len, block)``) or a read outside the gate stays reported."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from lint_runs import cli_rows

from h2dlint.analysis.divisible_gates import divisible_gate

TRAINER = """
import torch


def divisible_by(num, den):
    return (num % den) == 0


def train(model, optimizer, num_train_steps, history):
    for ind in range(num_train_steps):
        step = ind + 1
        data = torch.randn(16, 8, device="cuda")
        loss = (model.weight * data).pow(2).mean()
        if GATE:
            history.append(loss.item())
        loss.backward()
        optimizer.step()
"""


def trainer(gate: str) -> str:
    return TRAINER.replace("GATE", gate)


def test_divisible_by_step_is_a_periodic_gate(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, trainer("divisible_by(step, 10)"), "HTD202") == []


def test_modulo_gate_agrees(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, trainer("step % 10 == 0"), "HTD202") == []


def test_divisible_by_a_shape_stays_reported(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, trainer("divisible_by(data.shape[0], 2)"), "HTD202") == [15]


def test_plain_flag_stays_reported(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, trainer("step > 3"), "HTD202") == [15]


def _test(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def test_divisible_gate_needs_a_step_counter() -> None:
    assert divisible_gate(_test("divisible_by(step, 10)"))
    assert divisible_gate(_test("divisible_by(self.step, self.save_results_every)"))
    assert divisible_gate(_test("is_divisible(global_iter, 100)"))
    assert not divisible_gate(_test("divisible_by(len(wav), hop_length)"))
    assert not divisible_gate(_test("divisible_by(running_compress_seq_len, block)"))
    assert not divisible_gate(_test("divisible_by(step)"))
    assert not divisible_gate(_test("exists(step)"))

"""The analysis facts behind session 50's blind-style triage (docs/precision.md, "Session 50
(triage50a)"), each with the look-alike that must keep its verdict.

- OLMo-core's LM head: ``if isinstance(logits_to_keep, int): if logits_to_keep != 0:`` tests a
  Python int (analysis/type_tests.py: a type test of Python scalar builtins says no tensor in
  its body), where a test that also admits a tensor says nothing.
- OLMo-core's pipeline schedule builder: ``backward_stage_index(op)`` looks a number up, it
  runs no backward pass (analysis/backward_calls.py), where ``backward_step(op)`` does.
- instructlab-training's ``compute_validation_loss``: a validation loss runs once per
  validation, not per training batch (analysis/loss_names.py), where a training loss's name
  keeps it hot.
- SkyRL's workers: past ``if output.device != torch.device("cpu"): output = output.to("cpu")``
  the output is on the host on both paths (analysis/host_guarded_rebinds.py), where a body
  that keeps it on the device leaves it a device tensor.
- OLMo-core's CPU-offload reload: ``need_new = bank[i] is None or bank[i].device != dev or
  ...`` is a Python bool (analysis/row_shapes.py), where an ``or`` that may return a row's
  comparison is still a row.
- OLMo-core's metric reduction: ``torch.tensor([]).to(device, non_blocking=True)`` moves no
  bytes (analysis/factories.py), where a one-element tensor is still pageable memory.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import cli_rows

HEAD = """
from typing import Union

import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x: torch.Tensor, *, keep: Union[int, torch.Tensor] = 0):
        if isinstance(keep, {types}):
            if keep != 0:
                x = x[:, -keep:, :]
        else:
            x = x.gather(1, keep.unsqueeze(-1).expand(-1, -1, x.size(-1)))
        return self.proj(x)
"""


@pytest.mark.parametrize("types", ["int", "(int, float)", "bool"])
def test_a_python_scalar_type_test_says_no_tensor(tmp_path: Path, types: str) -> None:
    assert cli_rows(tmp_path, HEAD.replace("{types}", types), "HTD202") == []


@pytest.mark.parametrize("types", ["(int, torch.Tensor)", "numbers.Number"])
def test_a_type_test_that_admits_a_tensor_says_nothing(tmp_path: Path, types: str) -> None:
    assert cli_rows(tmp_path, HEAD.replace("{types}", types), "HTD202") == [11]


SCHEDULE = """
def {helper}(op, n):
    return n - 1 - op


def rank_ops(total_ops, warmup_ops, n):
    ops = []
    for op in range(total_ops):
        if op < warmup_ops:
            ops.append(("F", op))
        else:
            ops.append(("B", {helper}(op, n)))
    return ops
"""


@pytest.mark.parametrize("helper", ["backward_stage_index", "backward_order", "backward_count"])
def test_a_backward_lookup_runs_no_backward_pass(tmp_path: Path, helper: str) -> None:
    assert cli_rows(tmp_path, SCHEDULE.replace("{helper}", helper), "HTD202") == []


def test_a_backward_step_still_runs_one(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, SCHEDULE.replace("{helper}", "backward_step"), "HTD202") == [9]


VALIDATION = """
import torch


def {name}(model, loader, device):
    total = 0.0
    for batch in loader:
        total += model(batch["input_ids"]).loss.detach()
    loss_tensor = torch.tensor(total, device=device)
    torch.distributed.all_reduce(loss_tensor)
    return loss_tensor.item()
"""


@pytest.mark.parametrize("name", ["compute_validation_loss", "compute_val_loss"])
def test_a_validation_loss_is_not_a_training_batch(tmp_path: Path, name: str) -> None:
    assert cli_rows(tmp_path, VALIDATION.replace("{name}", name), "HTD202") == []


@pytest.mark.parametrize("name", ["compute_policy_loss", "compute_valid_token_loss"])
def test_a_training_loss_stays_hot(tmp_path: Path, name: str) -> None:
    assert cli_rows(tmp_path, VALIDATION.replace("{name}", name), "HTD202") == [11]


WORKER = """
import torch


class Worker:
    def forward(self, data):
        output = torch.cat([self.model(mb) for mb in data])
        if {test}:
            output = {body}
        return [{"logprobs": output[i].tolist()} for i in range(output.shape[0])]
"""


@pytest.mark.parametrize(
    "test",
    [
        'output.device is not None and output.device != torch.device("cpu")',
        'output.device.type != "cpu"',
        'output.device.type == "cuda"',
        "output.is_cuda",
    ],
)
def test_a_device_guarded_move_to_the_host_leaves_host_rows(tmp_path: Path, test: str) -> None:
    text = WORKER.replace("{test}", test).replace("{body}", 'output.to("cpu")')
    assert cli_rows(tmp_path, text, "HTD201") == []


@pytest.mark.parametrize(
    ("test", "body"),
    [
        ('output.device != torch.device("cpu")', "output.float()"),  # still on the device
        ("output.numel() > 0", 'output.to("cpu")'),  # no device test: the skip keeps it
        ('output.device == torch.device("cpu")', 'output.to("cpu")'),  # the wrong way round
    ],
)
def test_other_guards_leave_the_device_rows(tmp_path: Path, test: str, body: str) -> None:
    text = WORKER.replace("{test}", test).replace("{body}", body)
    assert cli_rows(tmp_path, text, "HTD201") == [10]


RELOAD = """
import torch


class Handler:
    def reload(self, bank, entries):
        for i, (dev, backup) in enumerate(entries):
            need_new = {value}
            if need_new:
                bank[i] = torch.empty(backup.size(), device=dev)
            bank[i].copy_(backup, non_blocking=True)

    def forward(self, bank, entries):
        self.reload(bank, entries)
"""


@pytest.mark.parametrize(
    "value",
    [
        "(i >= len(bank)) or (bank[i] is None) or (bank[i].device != dev)",
        "bank[i] is None or bank[i].device != dev or tuple(bank[i].size()) != backup.shape",
        "bank[i].device != dev or bank[i].shape[0] < backup.shape[0]",
    ],
)
def test_identity_and_metadata_tests_of_a_row_are_python_bools(tmp_path: Path, value: str) -> None:
    assert cli_rows(tmp_path, RELOAD.replace("{value}", value), "HTD201") == []


def test_an_or_that_may_return_a_row_comparison_is_a_row(tmp_path: Path) -> None:
    value = "(bank[i] is None) or (bank[i].device != dev) or (bank[i] == 0)"
    assert cli_rows(tmp_path, RELOAD.replace("{value}", value), "HTD201") == [9]


METRICS = """
import torch


def reduce_metrics(values, device):
    return [
        torch.stack(v) if v else {empty}.to(device=device, non_blocking=True)
        for v in values
    ]
"""


@pytest.mark.parametrize("empty", ["torch.tensor([])", "torch.as_tensor(())"])
def test_an_empty_tensor_moves_no_bytes(tmp_path: Path, empty: str) -> None:
    assert cli_rows(tmp_path, METRICS.replace("{empty}", empty), "HTD102") == []


@pytest.mark.parametrize("one", ["torch.tensor([0.0])", "torch.tensor(values)"])
def test_a_tensor_with_elements_is_still_pageable(tmp_path: Path, one: str) -> None:
    assert cli_rows(tmp_path, METRICS.replace("{empty}", one), "HTD102") == [7]

"""Session 42 (rebind42): a NaN/infinity check used as a truth value is a read (docs/recall.md,
"Session 42 (rebind42)").

A per-step check ``if torch.isnan(loss): raise`` (ai2-olmo 0.6.0's ``olmo/train.py:879``),
``if not torch.isfinite(loss):``, ``if loss.isnan(): continue`` reads the device like ``if
torch.isnan(loss).any():``, which was reported; ``math.isnan``/``np.isnan``, host tensors and
run-once code are not reported.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from lint_runs import cli_rows

from h2dlint.analysis.float_checks import float_check


def _expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


NAN_CHECK = """
import torch
def train(loader, model, opt):
    for batch in loader:
        x = batch.cuda()
        loss = (x * 2).sum()
        {check}
            raise ValueError("non-finite loss")
        loss.backward()
        opt.step()
"""


@pytest.mark.parametrize(
    "check",
    [
        "if torch.isnan(loss):",
        "if not torch.isfinite(loss):",
        "if loss.isnan():",
        "if torch.isinf(loss) or torch.isnan(loss):",
    ],
)
def test_a_nan_check_of_a_device_loss_per_step_is_a_read(tmp_path: Path, check: str) -> None:
    assert cli_rows(tmp_path, NAN_CHECK.format(check=check), "HTD202") == [7]


@pytest.mark.parametrize(
    "check",
    [
        "if math.isnan(float(batch[0])):",  # Python's check of a host number
        "if np.isnan(batch.numpy()).any():",  # numpy's, of a host array
        "if torch.isnan(torch.tensor([1.0, 2.0])).any():",  # a host tensor
    ],
)
def test_a_nan_check_of_host_values_is_no_read(tmp_path: Path, check: str) -> None:
    text = "import math\nimport numpy as np\n" + NAN_CHECK.format(check=check)
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_a_nan_check_in_run_once_code_is_left_alone(tmp_path: Path) -> None:
    text = """
import torch
def load_weights(model):
    w = model.weight.cuda()
    if torch.isnan(w).any() or not torch.isfinite(w.sum()):
        raise ValueError("bad weights")
    return w
"""
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_float_check() -> None:
    assert float_check(_expr("torch.isnan(x)"))
    assert float_check(_expr("x.isfinite()"))
    assert not float_check(_expr("math.isnan(x)"))
    assert not float_check(_expr("np.isinf(x)"))
    assert not float_check(_expr("torch.isnan(x, out=y)"))

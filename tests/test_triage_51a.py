"""The analysis facts behind session 51's blind-style triage (docs/precision.md, "Session 51
(triage51a)"), with the look-alikes that must keep their verdict.

- fms-model-optimizer's LSQ+ quantizer: ``if self.counter == 0: ... self.counter += 1``
  initialises its clip values from the first batch only (analysis/once_guards.py,
  ``raised_off_zero``: a counter tested for zero that the body raises by a positive literal),
  where a counter lowered, raised by a variable, tested against a warm-up length, or a body
  that raises another counter leaves the body per forward.
- fms-model-optimizer's ``PTQHookRecInOut``: a post-training-quantization hook caching each
  block's inputs and outputs on the host is calibration code (analysis/stored_offloads.py,
  ``PTQ`` as a word of a name), where ``ptq`` inside another word (``VPTQ``) says nothing.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from lint_runs import cli_rows

from h2dlint.analysis.once_guards import guarded_attribute, raised_off_zero

LSQ = """
import torch
from torch import nn


class LSQPlus(nn.Module):
    def __init__(self):
        super().__init__()
        self.clip = nn.Parameter(torch.tensor(1.0))
        self.counter = 0

    def forward(self, x):
        with torch.no_grad():
            if {test}:
                lo = x.min().item()
                self.clip.data.fill_(x.max().item() - lo)
                {raise_}
        return x / self.clip
"""


@pytest.mark.parametrize(
    ("test", "raise_"),
    [
        ("self.counter == 0", "self.counter += 1"),
        ("not self.counter", "self.counter += 1"),
        ("self.counter == 0", "self.counter.add_(1)"),
    ],
)
def test_a_counter_raised_off_zero_runs_its_body_once(
    tmp_path: Path, test: str, raise_: str
) -> None:
    text = LSQ.replace("{test}", test).replace("{raise_}", raise_)
    assert cli_rows(tmp_path, text, "HTD202") == []


@pytest.mark.parametrize(
    ("test", "raise_"),
    [
        ("self.counter == 0", "self.counter -= 1"),
        ("self.counter == 0", "self.counter += step"),
        ("self.counter < 10", "self.counter += 1"),
        ("self.counter == 0", "self.other += 1"),
    ],
)
def test_a_counter_not_raised_off_zero_stays_per_forward(
    tmp_path: Path, test: str, raise_: str
) -> None:
    text = LSQ.replace("{test}", test).replace("{raise_}", raise_)
    assert cli_rows(tmp_path, text, "HTD202") == [15, 16]


def _guard(source: str) -> bool:
    node = cst.parse_statement(source)
    assert isinstance(node, cst.If)
    flag = guarded_attribute(node.test)
    return flag is not None and raised_off_zero(node.test, flag, node.body)


@pytest.mark.parametrize(
    ("source", "once"),
    [
        ("if self.n == 0:\n    self.n += 1\n", True),
        ("if self.n == 0.0:\n    self.n += 2.5\n", True),
        ("if not self.n:\n    y = 1\n    self.n.add_(1)\n", True),
        ("if self.n == 1:\n    self.n += 1\n", False),
        ("if self.n == 0:\n    self.n += 0\n", False),
        ("if self.n == 0:\n    self.m += 1\n", False),
        ("if self.n == 0:\n    self.n *= 2\n", False),
    ],
)
def test_raised_off_zero_shapes(source: str, once: bool) -> None:
    assert _guard(source) is once


HOOK = """
import torch
from torch import nn


class {name}(nn.Module):
    def __init__(self, qcfg):
        super().__init__()
        self.qcfg = qcfg

    def __call__(self, mod, x, output):
        submods = [m for m in mod.modules()]
        if len(x) > 1:
            self.qcfg["cached_input0"].append(x[0].detach().cpu())
        else:
            self.qcfg["cached_input"].append(x[0].detach().cpu())
        self.qcfg["cached_output"].append(output.detach().cpu())
"""


@pytest.mark.parametrize("name", ["PTQHookRecInOut", "RunPTQ", "Hook_ptq"])
def test_a_hook_named_for_the_method_offloads(tmp_path: Path, name: str) -> None:
    """fms-model-optimizer's PTQ hook stores each block's inputs and outputs on the host
    (analysis/stored_offloads.py: ``PTQ`` as a word names calibration code)."""
    assert cli_rows(tmp_path, HOOK.replace("{name}", name), "HTD202") == []


@pytest.mark.parametrize("name", ["VPTQHook", "AdaptqHook", "RecorderHook"])
def test_the_word_inside_another_word_says_nothing(tmp_path: Path, name: str) -> None:
    assert cli_rows(tmp_path, HOOK.replace("{name}", name), "HTD202") == [14, 16, 17]

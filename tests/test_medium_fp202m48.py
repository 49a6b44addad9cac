"""HTD202 false alarms, session 48 (fp202m48): an attribute its class only updates from itself.

mmagic's inpaintors (``TwoStageInpaintor``, ``AOTInpaintor``, ``DeepFillv1Inpaintor``,
``GLInpaintor``) count discriminator steps with ``self.disc_step_count = (self.disc_step_count
+ 1) % self.train_cfg.disc_step`` and test ``if self.disc_step_count != 0:`` in
``train_step``; the count starts as ``0`` in ``OneStageInpaintor.__init__``, in another
module. ``state_tensors.own_tensor_attribute`` proved the attribute a tensor because its one
assignment in the subclass reads the attribute, whose cycle answered "the other assignments
decide" with no other assignment there. ``analysis/grounded_attributes.py`` asks, when every
assignment reads the attribute, that one of them proves a tensor with the cycle answered "no":
``torch.cat([self.seq, ids])``, ``self.total + loss.detach()`` and a class that also binds a
device tensor keep the read reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import lint, package_records

COUNTER = """\
import torch
from torch import nn

from .base import OneStage


class TwoStage(OneStage):
    def train_step(self, data, optim):
        loss = self.net(data).sum()
        loss.backward()
        self.disc_step_count = {update}
        if self.disc_step_count != 0:
            return dict(loss=loss)
        return dict(loss=loss * 2)
"""

BASE = """\
from torch import nn


class OneStage(nn.Module):
    def __init__(self, train_cfg):
        super().__init__()
        self.train_cfg = train_cfg
        self.disc_step_count = 0
        self.net = nn.Linear(4, 4)
"""


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD202"))


@pytest.mark.parametrize(
    "update",
    [
        "(self.disc_step_count + 1) % self.train_cfg.disc_step",
        "self.disc_step_count + 1",
        "min(self.disc_step_count + 1, self.train_cfg.disc_step)",
    ],
)
def test_a_counter_only_updated_from_itself_is_not_reported(update: str) -> None:
    assert _rows(COUNTER.format(update=update)) == []


def test_the_counter_of_a_base_class_in_another_module_is_not_reported(tmp_path: Path) -> None:
    # mmagic/models/base_models/two_stage.py:307, the base's ``= 0`` in one_stage.py
    files = {"base.py": BASE, "two.py": COUNTER.format(update="(self.disc_step_count + 1) % 2")}
    assert package_records(tmp_path, files, "HTD202") == []


@pytest.mark.parametrize(
    "update",
    [
        "torch.cat([self.disc_step_count, loss[None]])",
        "self.disc_step_count + loss.detach()",
        "torch.maximum(self.disc_step_count, loss)",
    ],
)
def test_an_update_that_makes_a_tensor_whatever_it_held_stays_reported(update: str) -> None:
    assert _rows(COUNTER.format(update=update)) == [12]


def test_a_class_that_also_binds_a_device_tensor_stays_reported() -> None:
    code = """\
    import torch
    from torch import nn


    class Model(nn.Module):
        def __init__(self, device):
            super().__init__()
            self.net = nn.Linear(4, 4)
            self.steps = torch.zeros((), device=device)

        def train_step(self, data, optim):
            loss = self.net(data).sum()
            loss.backward()
            self.steps = self.steps + 1
            if self.steps > 10:
                return dict(loss=loss)
            return dict(loss=loss * 2)
    """
    assert _rows(code) == [15]


def test_a_state_tensor_grown_with_cat_stays_reported() -> None:
    # OpenNMT's search state (session 30): ``self.seq = torch.cat([self.seq, ids], -1)``
    code = """\
    import torch
    from torch import nn


    class Search:
        def step(self, model, x):
            ids = model(x).argmax(-1)
            self.seq = torch.cat([self.seq, ids[:, None]], -1)
            return self.seq.tolist()
    """
    assert _rows(code) == [9]

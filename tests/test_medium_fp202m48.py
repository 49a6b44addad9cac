"""HTD202 false alarms, session 48 (fp202m48): an attribute its class only updates from itself.

mmagic's inpaintors (``TwoStageInpaintor``, ``AOTInpaintor``, ``DeepFillv1Inpaintor``,
``GLInpaintor``) count discriminator steps with ``self.disc_step_count = (self.disc_step_count
+ 1) % self.train_cfg.disc_step`` and test ``if self.disc_step_count != 0:`` in
``train_step``; the count starts as ``0`` in ``OneStageInpaintor.__init__``, in another
module. ``state_tensors.own_tensor_attribute`` proved the attribute a tensor because its one
assignment in the subclass reads the attribute, whose cycle answered "the other assignments
decide" with no other assignment there. ``analysis/grounded_attributes.py`` asks, when every
assignment reads the attribute and a base class of the project starts it as a number, that one
of them proves a tensor with the cycle answered "no": ``torch.cat([self.seq, ids])``,
``self.total + loss.detach()``, a class that also binds a device tensor, a base class that
binds a tensor (eole's ``DecodeStrategy``: ``self.src_len = tile(src_len, beam_size)``, then
``self.src_len[self.select_indices]`` in ``BeamSearchBase``) and a base the project does not
define keep the read reported.
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
import torch
from torch import nn


class OneStage(nn.Module):
    def __init__(self, train_cfg, device):
        super().__init__()
        self.train_cfg = train_cfg
        self.disc_step_count = {start}
        self.net = nn.Linear(4, 4)
"""


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD202"))


def _project_rows(tmp_path: Path, start: str, update: str) -> list[int]:
    files = {"base.py": BASE.format(start=start), "two.py": COUNTER.format(update=update)}
    return sorted(r["location"]["row"] for r in package_records(tmp_path, files, "HTD202"))


@pytest.mark.parametrize(
    "update",
    [
        "(self.disc_step_count + 1) % self.train_cfg.disc_step",
        "self.disc_step_count + 1",
    ],
)
@pytest.mark.parametrize("start", ["0", "-1", "0.0"])
def test_a_count_a_base_class_starts_as_a_number_is_not_reported(
    tmp_path: Path, start: str, update: str
) -> None:
    # mmagic/models/base_models/two_stage.py:307, the base's ``= 0`` in one_stage.py
    assert _project_rows(tmp_path, start, update) == []


@pytest.mark.parametrize("start", ["torch.zeros((), device=device)", "None", "train_cfg.start"])
def test_a_base_class_binding_anything_else_keeps_the_read_reported(
    tmp_path: Path, start: str
) -> None:
    # eole/predict/beam_search.py:210: DecodeStrategy binds ``tile(src_len, beam_size)``
    update = "(self.disc_step_count + 1) % self.train_cfg.disc_step"
    assert _project_rows(tmp_path, start, update) == [12]


def test_a_base_the_project_does_not_define_keeps_the_read_reported() -> None:
    update = "(self.disc_step_count + 1) % self.train_cfg.disc_step"
    assert _rows(COUNTER.format(update=update)) == [12]


def test_a_base_that_only_updates_the_count_is_passed_through(tmp_path: Path) -> None:
    # mmagic/models/editors/deepfillv1/deepfillv1.py:346: DeepFillv1Inpaintor(TwoStageInpaintor)
    middle = COUNTER.replace("class TwoStage(OneStage)", "class Middle(OneStage)").format(
        update="(self.disc_step_count + 1) % self.train_cfg.disc_step"
    )
    leaf = COUNTER.replace("from .base import OneStage", "from .two import Middle").replace(
        "class TwoStage(OneStage)", "class Leaf(Middle)"
    )
    files = {
        "base.py": BASE.format(start="0"),
        "two.py": middle,
        "leaf.py": leaf.format(update="self.disc_step_count + 1"),
    }
    assert package_records(tmp_path, files, "HTD202") == []


def test_a_base_class_in_the_same_module_is_asked_too() -> None:
    code = BASE.format(start="0") + "\n\n" + COUNTER.format(update="self.disc_step_count + 1")
    code = code.replace("from .base import OneStage\n", "")
    assert _rows(code) == []


@pytest.mark.parametrize(
    "update",
    [
        "torch.cat([self.disc_step_count, loss[None]])",
        "self.disc_step_count + loss.detach()",
        "torch.maximum(self.disc_step_count, loss)",
    ],
)
def test_an_update_that_makes_a_tensor_whatever_it_held_stays_reported(
    tmp_path: Path, update: str
) -> None:
    assert _project_rows(tmp_path, "0", update) == [12]


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

"""The analysis facts behind session 43's blind-style triage of VLM, video and MoE model code
(docs/precision.md, "Session 43 (triage43b)"), with the twins that must keep their verdict.

A list of ``self`` that the class's forward hook fills with a layer's output is activations:
moving each item to the input's device copies nothing from the host (vit-pytorch's
``Recorder``); the same list also fed from a file, or written any other way, stays MEDIUM.
A trainer module that hands its models to ``accelerator.prepare`` and never moves itself keeps
its own buffers where ``__init__`` made them (phenaki-pytorch's and muse-maskgit-pytorch's
``steps`` counter read with ``.item()`` each step); one that moves itself, or is moved with the
model it holds (no accelerate), stays MEDIUM."""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import cli_rows

RECORDER = """
import torch
from torch import nn
class Recorder(nn.Module):
    def __init__(self, vit, device):
        super().__init__()
        self.vit = vit
        self.device = device
        self.recordings = []
    def _hook(self, _, input, output):
        self.recordings.append(output.clone().detach())
    def register(self):
        for module in self.vit.modules():
            module.register_forward_hook(self._hook)
    def record(self, attn):
        recording = attn.clone().detach()
        self.recordings.append(recording)
{extra}
    def clear(self):
        self.recordings.clear()
    def forward(self, img):
        self.clear()
        pred = self.vit(img)
        recordings = tuple(map(lambda t: t.to(self.device), self.recordings))
        return pred, torch.stack(recordings, dim=1)
"""

OTHER_APPENDS = {
    "loaded": "    def load(self, path):\n        self.recordings.append(torch.load(path))",
    "to the host": "    def keep(self, x):\n        self.recordings.append(x.cpu())",
    "rebound": "    def reset(self, xs):\n        self.recordings = xs",
    "extended": "    def more(self, xs):\n        self.recordings.extend(xs)",
}


def test_hook_recorded_list_is_activations(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, RECORDER.format(extra=""), "HTD101") == []


@pytest.mark.parametrize("kind", sorted(OTHER_APPENDS))
def test_list_fed_otherwise_stays_reported(tmp_path: Path, kind: str) -> None:
    text = RECORDER.format(extra=OTHER_APPENDS[kind])
    assert cli_rows(tmp_path, text, "HTD101") == [25]


def test_list_without_hook_stays_reported(tmp_path: Path) -> None:
    text = RECORDER.format(extra="").replace("module.register_forward_hook(self._hook)", "pass")
    assert cli_rows(tmp_path, text, "HTD101") == [24]


TRAINER = """
import torch
from torch import nn
from accelerate import Accelerator
class Trainer(nn.Module):
    def __init__(self, vae, lr):
        super().__init__()
        self.accelerator = Accelerator()
        self.register_buffer("steps", {buffer})
        self.vae = vae
        self.optim = torch.optim.Adam(vae.parameters(), lr=lr)
        {prepare}
    def train_step(self, batch):
        steps = int(self.steps.item())
        loss = self.vae(batch)
        self.accelerator.backward(loss)
        self.optim.step()
        self.steps += 1
        return steps
"""
PREPARE = "self.vae, self.optim = self.accelerator.prepare(self.vae, self.optim)"


def test_accelerate_trainer_buffer_is_host(tmp_path: Path) -> None:
    text = TRAINER.format(buffer="torch.Tensor([0])", prepare=PREPARE)
    assert cli_rows(tmp_path, text, "HTD202") == []


@pytest.mark.parametrize(
    ("buffer", "prepare"),
    [
        ("torch.Tensor([0])", PREPARE + "\n        self.to(self.accelerator.device)"),
        ("torch.Tensor([0])", PREPARE + "\n        super().cuda()"),
        ("torch.Tensor([0])", "self.accelerator.prepare(self)"),
        ("torch.Tensor([0])", "self.vae = vae"),
        ("torch.zeros(1, device='cuda')", PREPARE),
    ],
    ids=["moves itself", "super moves", "prepares itself", "no accelerate", "device buffer"],
)
def test_moved_or_device_buffer_stays_reported(tmp_path: Path, buffer: str, prepare: str) -> None:
    rows = cli_rows(tmp_path, TRAINER.format(buffer=buffer, prepare=prepare), "HTD202")
    assert len(rows) == 1


HELPER = """
import torch
from torch import nn
def {name}(t):
    return {body}
class Experts(nn.Module):
    def forward(self, x):
        sizes = torch.stack([x.sum(), x.mean()]).cuda()
        if {name}(sizes):
            x = x + 1
        return x
"""


@pytest.mark.parametrize(
    "body", ["(t == t[0]).all()", "t.isnan().any()", "torch.isinf(t).any()", "t.max() > 0"]
)
def test_helper_returning_a_tensor_test_is_a_read(tmp_path: Path, body: str) -> None:
    """``if has_only_one_value(sizes):`` syncs like the test written in place
    (st-moe-pytorch's all-gathered sizes)."""
    text = HELPER.format(name="check", body=body)
    assert cli_rows(tmp_path, text, "HTD202") == [9]


@pytest.mark.parametrize(
    "body",
    ["len(t) == 1", "t.ndim == 1", "bool((t == t[0]).all())", "(t == other[0]).all()", "t"],
)
def test_helper_returning_no_tensor_test_stays_clean(tmp_path: Path, body: str) -> None:
    """A Python answer (a length, a shape), a read inside the helper (reported there, where
    it runs), a test of something else than the argument, or the bare argument: nothing the
    caller's ``if`` reads through the helper."""
    text = HELPER.format(name="check", body=body).replace(
        "class Experts", "other = []\nclass Experts"
    )
    rows = cli_rows(tmp_path, text, "HTD202")
    assert 10 not in rows

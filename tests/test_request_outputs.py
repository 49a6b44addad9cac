"""Session 38 (outputs38b, docs/precision.md): a host copy of a tensor on an unknown device that
its function returns as host data (numpy, a PIL image), outside its loops, in a function not
hot by its name, not of a loss or trainer class, and not called in a loop (or a hot function)
of its module, is a request's result for host code (whisper-s2t's VAD ``forward``, carvekit's
compositor): HTD202 no longer reports it. Its twins stay reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from h2dlint.cli import main

CLEARED = {
    "vad": """
import torch
class FrameVAD(torch.nn.Module):
    def forward(self, audio):
        probs = self.model(audio).softmax(dim=-1)[:, 1]
        return probs.cpu().numpy()
""",
    "named": """
import torch
class SegVAD(torch.nn.Module):
    def forward(self, audio):
        scores = self.model(audio)
        probs = scores.sigmoid().cpu().numpy()
        return probs
""",
    "pil": """
import numpy as np
import torch
from PIL import Image
class Matting(torch.nn.Module):
    def forward(self, image):
        alpha = self.net(image).sigmoid()[0]
        return Image.fromarray((alpha * 255).cpu().numpy().astype(np.uint8))
""",
}

KEPT = {
    "tolist": """
import torch
class Sampler(torch.nn.Module):
    def forward(self, logits):
        ids = torch.argmax(logits, dim=-1)
        return ids.cpu().numpy().tolist()
""",
    "loop": """
import torch
class Streamer(torch.nn.Module):
    def forward(self, chunks):
        outs = []
        for chunk in chunks:
            wave = self.model(chunk)
            outs.append(wave.cpu().numpy())
        return outs
""",
    "step": """
class Policy:
    def act_step(self, obs):
        action = self.actor(obs).tanh()
        return action.cpu().numpy()
""",
    "loss": """
import torch
class AdversarialLoss(torch.nn.Module):
    def forward(self, wav):
        pred = self.model(wav)
        return self.disc(pred).mean(), pred.detach().cpu().numpy()
""",
    "handed_to_a_call": """
import torch
class HostSampler(torch.nn.Module):
    def forward(self, probs: torch.Tensor):
        return self.sample_on_host(probs.cpu().numpy())
""",
    "called_from_a_hot_function": """
import torch
from torchmetrics import Metric
def matched(cost: torch.Tensor):
    from scipy.optimize import linear_sum_assignment
    return linear_sum_assignment(cost.softmax(-1).cpu().numpy())
class Matching(Metric):
    def update(self, preds: torch.Tensor, target: torch.Tensor):
        self.pairs.append(matched(preds @ target.T))
""",
    "not_host_data": """
import torch
class Encoder(torch.nn.Module):
    def forward(self, x):
        lengths = self.lengths(x)
        return lengths.cpu()
""",
}


def _findings(tmp_path: Path, text: str) -> list[int]:
    path = tmp_path / "example.py"
    path.write_text(text)
    args = ["check", "--no-cache", "--select", "HTD202", "--output-format", "json", str(path)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return [f["location"]["row"] for f in json.loads(result.output)]


@pytest.mark.parametrize("name", sorted(CLEARED))
def test_request_output_is_cleared(tmp_path: Path, name: str) -> None:
    assert _findings(tmp_path, CLEARED[name]) == []


@pytest.mark.parametrize("name", sorted(KEPT))
def test_twin_stays_reported(tmp_path: Path, name: str) -> None:
    assert _findings(tmp_path, KEPT[name]) != []


EARLY = """
import torch
class Policy:
    def train_step(self, observations):
        for obs in observations:
            self.finish(obs)
    def finish(self, obs):
        action = self.actor(obs).tanh()
        return action.cpu().numpy()
class Later:
    def g(self):
        pass
"""


def test_a_find_early_in_the_module_is_no_error(tmp_path: Path) -> None:
    """The module's walk stops at the first looped call of the name (rl-games' ``a2c_common``
    once made an internal error of it): the classes and functions left after it are skipped
    and nothing is popped for them; the copy, called per item, stays reported."""
    path = tmp_path / "example.py"
    path.write_text(EARLY)
    args = ["check", "--no-cache", "--select", "ALL", "--output-format", "json", str(path)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    codes = [f["code"] for f in json.loads(result.output)]
    assert "E900" not in codes
    assert "HTD202" in codes

"""The analysis facts behind session 40's blind-style triage (docs/precision.md, "Session 40
(triage40)"), with the twins that must keep their verdict. A value of any name compared with
``"cpu"`` chooses where the work runs: the host copies in that branch are the choice (YOLOX's
label assignment retried with ``mode="cpu"`` after an out-of-memory error), while the same
copies under a test for ``"cuda"`` stay reported. ``torch.device("cpu" if c else "cuda")`` is
a choice that proves no device. A membership test of a plain item of a moved batch and
``torch.tensor`` of what a loop takes out of one are Python's (kraken's baselines, a dict of
polylines per class); a membership test of a computed tensor stays a read. A function's own
input copied to numpy and reshaped by numpy's own methods (`.squeeze(0)`) on its way to a host
library is the library's input, as the bare array already was (torchcrepe's loudness)."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

MODE = """
import torch
from torch import nn
class Head(nn.Module):
    def forward(self, preds, gts):
        try:
            return self.assign(preds, gts)
        except RuntimeError:
            return self.assign(preds, gts, "{mode}")
    def assign(self, preds, gts, mode="gpu"):
        preds = preds.cuda()
        if mode == "{mode}":
            preds = preds.cpu().float()
        return preds * 2, gts
"""

CHOSEN_DEVICE = """
import torch
def rows(flag):
    dev = {device}
    t = torch.zeros(4, device=dev)
    return [v.item() for v in t.unbind(0)]
"""

BATCH = """
import torch
import lightning as L
def resample(points):
    total = torch.norm(points[1:] - points[:-1], dim=-1).sum()
    if total < 1e-6:
        return points[:1]
    return points
class Segmenter(L.LightningModule):
    def validation_step(self, batch, batch_idx):
        gt = {container}
        lines = []
        for cls_idx in self.classes:
            if cls_idx in gt:
                for bl in gt[cls_idx]:
                    lines.append(resample(torch.tensor(bl, dtype=torch.float32)))
        return lines
"""


def test_a_copy_in_a_cpu_mode_branch_is_the_choice(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, MODE.format(mode="cpu"), "HTD202") == []
    # The same copy where the mode names the GPU is a sync on the hot path.
    assert cli_rows(tmp_path, MODE.format(mode="cuda"), "HTD202") == [13]


def test_a_device_chosen_between_cpu_and_cuda_proves_none(tmp_path: Path) -> None:
    chosen = CHOSEN_DEVICE.format(device='torch.device("cpu" if flag else "cuda")')
    assert cli_rows(tmp_path, chosen, "HTD201") == []
    cuda = CHOSEN_DEVICE.format(device='torch.device("cuda")')
    assert cli_rows(tmp_path, cuda, "HTD201") == [6]


def test_a_plain_batch_item_is_a_container(tmp_path: Path) -> None:
    plain = BATCH.format(container='batch["baselines"][0]')
    assert cli_rows(tmp_path, plain, "HTD202") == []
    # A computed tensor's membership test and rows stay reads of the device.
    computed = BATCH.format(container='batch["scores"].argmax(-1)')
    assert cli_rows(tmp_path, computed, "HTD202") == [6, 14]


LIBRARY = """
import librosa
import torch
def loudness(audio):
    arr = audio.detach().cpu().numpy().squeeze(0)
    out = librosa.effects.preemphasis(arr)
    return {returned}
class Silence:
    def __call__(self, periodicity, audio):
        return periodicity * loudness(audio)
"""


def test_a_reshaped_array_handed_to_a_library_is_its_input(tmp_path: Path) -> None:
    handed = LIBRARY.format(returned="torch.from_numpy(out)")
    assert cli_rows(tmp_path, handed, "HTD202") == []
    # The array itself taken back into PyTorch is a round trip through the host.
    back = LIBRARY.format(returned="torch.from_numpy(arr) + torch.from_numpy(out)")
    assert cli_rows(tmp_path, back, "HTD202") == [5]

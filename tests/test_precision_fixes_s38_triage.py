"""The analysis facts behind session 38's blind-style triage (docs/precision.md, "Session 38
(triage38)"), with the twins that must keep their verdict. A device test for DirectML
(torch-directml's ``privateuseone`` slot, ``_is_dml_device(device)``) holds only off CUDA like
one for MPS, and so does the arm of a conditional expression under such a test (``w.cpu() if
x_is_dml else w``, audio-separator's band-split RoFormer): the copies there are a backend's
CPU hop, not a GPU sync. And ``np`` that only a star import can have brought in is numpy
(voicefixer's ``from .pytorch_util import *``): a loop over a numpy sum's rows reads no
tensor."""

from __future__ import annotations

import json
from pathlib import Path

import libcst as cst
from click.testing import CliRunner

from h2dlint.analysis.device_branches import holds_on_cuda, only_off_cuda
from h2dlint.cli import main
from h2dlint.imports import ImportTable

ROFORMER = """
import torch
def _is_dml_device(device) -> bool:
    return device.type == "privateuseone"
class BSRoformer(torch.nn.Module):
    def forward(self, audio: torch.Tensor):
        x_is_mps = audio.device.type == "mps"
        x_is_dml = {dml}
        window = torch.hann_window(1024, device=audio.device)
        if x_is_mps or x_is_dml:
            spec = torch.stft(audio.cpu(), 1024, window=window.cpu())
        else:
            spec = torch.stft(audio, 1024, window=window)
        return torch.istft(spec, 1024, window=window.cpu() if x_is_dml else window)
"""

ENERGY = """
{imports}
import torch
class Fixer(torch.nn.Module):
    def energy(self, stft, threshold):
        e = np.sum(stft, axis=1)
        total = e[-1]
        for i in range(e.shape[0]):
            if e[i] < total * threshold:
                continue
            break
        return i
"""


def _findings(tmp_path: Path, text: str, rule: str) -> list[int]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(text)
    args = ["-j1", "--no-cache", "--select", rule, "--output-format", "json", str(package)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return sorted(f["location"]["row"] for f in json.loads(result.stdout))


def _test(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def test_a_directml_device_test_holds_only_off_cuda() -> None:
    for code in (
        "_is_dml_device(device)",
        "utils.is_directml(x)",
        'device.type == "privateuseone"',
        'x.device.type in ("mps", "privateuseone")',
    ):
        assert only_off_cuda(_test(code)), code
        assert not holds_on_cuda(_test(code)), code
    # A setting or a size, and CUDA's own test, are no other backend's.
    for code in ("is_dml_enabled_for_export", "x.numel() > 8192", 'device.type == "cuda"'):
        assert not only_off_cuda(_test(code)), code


def test_copies_in_a_directml_branch_and_a_conditional_arm_are_not_reported(
    tmp_path: Path,
) -> None:
    assert _findings(tmp_path, ROFORMER.format(dml="_is_dml_device(audio.device)"), "HTD202") == []


def test_the_same_copies_under_a_test_that_also_holds_on_cuda_stay_reported(
    tmp_path: Path,
) -> None:
    """A size test instead of the DirectML one: the branch and the arm run on CUDA too."""
    found = _findings(tmp_path, ROFORMER.format(dml="audio.numel() > 8192"), "HTD202")
    assert found == [11, 11, 14], found


def test_np_only_a_star_import_can_bind_is_numpy() -> None:
    starred = ImportTable.from_module(cst.parse_module("from .utils import *\n"))
    assert starred.qualify(_test("np.sum")) == "numpy.sum"
    # An explicit binding wins, and without a star import ``np`` stays unknown.
    bound = ImportTable.from_module(
        cst.parse_module("from .utils import *\nimport jax.numpy as np\n")
    )
    assert bound.qualify(_test("np.sum")) == "jax.numpy.sum"
    assert (
        ImportTable.from_module(cst.parse_module("import torch\n")).qualify(_test("np.x")) is None
    )


def test_a_numpy_sum_from_a_star_import_is_no_tensor_row_loop(tmp_path: Path) -> None:
    assert _findings(tmp_path, ENERGY.format(imports="from .pytorch_util import *"), "HTD201") == []


def test_an_unknown_library_of_the_same_shape_stays_reported(tmp_path: Path) -> None:
    """Without a star import (``np`` bound to nothing the module shows) the loop stays a
    possible tensor's, as before."""
    assert _findings(tmp_path, ENERGY.format(imports="from .utils import xp as np"), "HTD201")

"""The analysis facts behind session 36's blind-style triage (docs/precision.md, "Session 36
(triage36)"), with the twins that must keep their verdict:

- a diffusion sampler's ``sample()`` that hands its loop of steps to a method of its class
  (CompVis' ``DDIMSampler.sample`` -> ``self.ddim_sampling``, vendored by AudioSR and IOPaint)
  runs once per request: the schedule it makes first is set-up, also where the project index
  finds ``sample()`` called from a model's ``forward`` in another module; the delegate's loop,
  and a ``while`` test of a loop of steps, stay hot;
- ``g != None`` of a tensor is Python's identity answer;
- an early ``return`` unless the step is on the period, ``or``-ed with another test;
- a branch taken on a few calls in a hundred (``random.random() < 0.01``), not a coin flip;
- a VITS-style ``...Collate`` class builds batches on the host."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from lint_runs import package_records

from h2dlint.analysis.host_data import host_pipeline_class
from h2dlint.analysis.request_drivers import request_driver, step_delegates
from h2dlint.analysis.sync_basics import periodic_test

SAMPLER = """
import numpy as np
import torch
class DDIMSampler:
    def __init__(self, model):
        self.model = model
    def make_schedule(self, steps):
        alphas_cumprod = self.model.alphas_cumprod
        self.sqrt_alphas = torch.tensor(np.sqrt(alphas_cumprod.cpu()))
    def sample(self, steps, cond, shape):
        self.make_schedule(steps)
        return self.ddim_sampling(cond, shape, steps)
    def ddim_sampling(self, cond, shape, steps):
        img = torch.randn(shape, device="cuda")
        for i in range(steps):
            img = self.p_sample_ddim(img, cond, i)
            if img.isnan().any():
                break
        return img
    def p_sample_ddim(self, x, c, t):
        return self.model.apply_model(x, t, c)
"""

ADAPTIVE = """
import torch
class DPM_Solver:
    def __init__(self, model):
        self.model = model
    def model_fn(self, x, t):
        return self.model(x, t)
    def adaptive(self, x, s, t_0):
        update = lambda x, s: self.first_update(x, s)
        while torch.abs(s - t_0).mean() > 1e-5:
            x = update(x, s)
            s = s - 0.1
        return x
    def sample(self, x, steps, method, t_0):
        if method == "adaptive":
            return self.adaptive(x, torch.ones(1, device="cuda"), t_0)
        for step in range(steps):
            x = self.model_fn(x, step)
        return x
"""

INPAINT = """
import torch
from pkg.sampler import DDIMSampler
class LDM(torch.nn.Module):
    def forward(self, image):
        sampler = DDIMSampler(self.model)
        return sampler.sample(50, image, image.shape)
"""


def _findings(tmp_path: Path, files: dict[str, str], select: str = "HTD202") -> list[tuple]:
    records = package_records(tmp_path, files, select)
    return sorted((Path(f["filename"]).name, f["location"]["row"], f["code"]) for f in records)


def _class(source: str, name: str) -> cst.ClassDef:
    module = cst.parse_module(source)
    return next(n for n in module.body if isinstance(n, cst.ClassDef) and n.name.value == name)


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return next(n for n in body if isinstance(n, cst.FunctionDef) and n.name.value == name)


def test_a_sampler_that_hands_its_loop_to_a_method_drives_the_request() -> None:
    cls = _class(SAMPLER, "DDIMSampler")
    sample = _method(cls, "sample")
    assert request_driver(sample, cls)
    assert [m.name.value for m in step_delegates(sample, cls)] == ["ddim_sampling"]


def test_the_schedule_is_set_up_once_and_the_delegates_loop_stays_hot(tmp_path: Path) -> None:
    # Only the NaN test of the loop of steps (line 17) is reported, not the schedule (line 9).
    assert _findings(tmp_path, {"sampler.py": SAMPLER}) == [("sampler.py", 17, "HTD202")]


def test_called_from_a_models_forward_elsewhere_the_schedule_stays_set_up(
    tmp_path: Path,
) -> None:
    found = _findings(tmp_path, {"sampler.py": SAMPLER, "ldm.py": INPAINT})
    assert ("sampler.py", 9, "HTD202") not in found
    assert ("sampler.py", 17, "HTD202") in found


def test_a_while_loop_of_steps_in_a_delegate_keeps_its_test_hot(tmp_path: Path) -> None:
    cls = _class(ADAPTIVE, "DPM_Solver")
    assert [m.name.value for m in step_delegates(_method(cls, "sample"), cls)] == ["adaptive"]
    found = _findings(tmp_path, {"solver.py": ADAPTIVE}, "HTD201,HTD202")
    # the hot while test, reported once: by HTD201, which HTD202 leaves it to (session 45)
    assert ("solver.py", 10, "HTD201") in found
    assert ("solver.py", 10, "HTD202") not in found


def test_a_sample_holding_its_own_loop_hands_nothing_over() -> None:
    source = SAMPLER.replace(
        "        self.make_schedule(steps)\n        return self.ddim_sampling(cond, shape, steps)",
        "        for i in range(steps):\n"
        "            cond = self.model(cond, i)\n"
        "        return cond",
    )
    cls = _class(source, "DDIMSampler")
    assert step_delegates(_method(cls, "sample"), cls) == []


def test_a_comparison_with_none_reads_no_device(tmp_path: Path) -> None:
    source = (
        "import torch\n"
        "class Encoder(torch.nn.Module):\n"
        "    def forward(self, x, g=None):\n"
        "        h = torch.ones(2, device='cuda')\n"
        "        if g != None:\n"
        "            g = g.detach()\n"
        "        if h.sum() != 0:\n"
        "            h = h * 2\n"
        "        return x + h\n"
    )
    # The twin `h.sum() != 0` compares a device value: reported.
    assert _findings(tmp_path, {"enc.py": source}) == [("enc.py", 7, "HTD202")]


def test_an_or_ed_early_return_off_the_period(tmp_path: Path) -> None:
    source = (
        "import torch\n"
        "class Enhancer(torch.nn.Module):\n"
        "    def _visualize(self, mel):\n"
        "        if self.loop is None or self.loop.global_step % 100 != 0:\n"
        "            return\n"
        "        self.plot(mel[0].cpu().numpy())\n"
        "    def _show(self, mel):\n"
        "        if self.loop is None or self.enabled:\n"
        "            return\n"
        "        self.plot(mel[0].cpu().numpy())\n"
        "    def forward(self, x):\n"
        "        mel = self.net(x)\n"
        "        self._visualize(mel)\n"
        "        self._show(mel)\n"
        "        return mel\n"
    )
    # The twin `_show` returns on a flag, not off a period: its copy stays reported.
    assert [row for _, row, _ in _findings(tmp_path, {"enh.py": source})] == [10]


def test_a_rare_draw_is_occasional_and_a_coin_flip_is_not() -> None:
    def test(code: str) -> bool:
        return periodic_test(cst.parse_expression(code))

    assert test("random.random() < 0.01")
    assert test("random() <= 0.1")
    assert not test("random.random() < 0.5")
    assert not test("random.random() > 0.01")
    assert not test("random.random(3) < 0.01")


def test_a_vits_collate_class_prepares_host_batches() -> None:
    assert host_pipeline_class("TextAudioCollate")
    assert host_pipeline_class("TextAudioSpeakerCollate")
    assert host_pipeline_class("DataCollatorForSeq2Seq")
    assert not host_pipeline_class("Collated")
    assert not host_pipeline_class("CollateAttention")

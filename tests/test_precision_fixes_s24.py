"""The analysis facts behind session 24's held-out precision fixes (helper precision24,
docs/precision.md, "Session 24 (precision24)"): the look-alikes found in code no triage had
read (uni2ts' Lightning steps, TabPFN's fine-tuning epochs, ControlNet annotators and an infill
wrapper, Whisper's decoding loop, torchtitan's validation pass), and their true twins."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.first_iterations import first_iteration
from h2dlint.analysis.step_loops import _steps
from h2dlint.analysis.value_syncs import key_membership


def _findings(code: str, rule_code: str = "HTD202", path: str = "m.py") -> list[int]:
    return [f.start.row for f in lint(code, rule_code, path=path)]


# -- a string looked up in a batch --------------------------------------------------------------

STEP = """
    import torch
    import lightning as L

    class Forecaster(L.LightningModule):
        def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int):
            loss = self.model(batch["target"])
            size = batch["sample_id"].max() if "sample_id" in batch else None
            if MEMBER:
                loss = loss * 2
            return loss, size
"""


def _comparison(text: str) -> cst.Comparison:
    node = cst.parse_expression(text)
    assert isinstance(node, cst.Comparison)
    return node


def test_a_string_in_a_container_is_a_key_test() -> None:
    assert key_membership(_comparison('"mask" in batch'))
    assert key_membership(_comparison('f"{k}_mask" not in inputs'))
    assert not key_membership(_comparison("token in stop_ids"))  # a number in a tensor: a read
    assert not key_membership(_comparison('"a" == batch'))
    assert not _findings(STEP.replace("MEMBER", '"mask" in batch'))


def test_a_tensor_membership_or_test_stays_reported() -> None:
    # the true twin: a device tensor's reduction as the test, in the same step
    assert _findings(STEP.replace("MEMBER", "(batch['target'] > 0).any()")) == [9]


# -- an epoch loop's own body -------------------------------------------------------------------

EPOCHS = """
    import torch
    import torch.distributed as dist

    class Finetuner:
        def fit(self, model, optimizer, scaler, loader):
            for VAR in range(self.epochs):
                epoch_loss_sum = 0.0
                for batch in loader:
                    optimizer.zero_grad()
                    loss = model(batch)
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
                loss_tensor = torch.tensor([epoch_loss_sum], device=self.device)
                dist.all_reduce(loss_tensor)
                epoch_loss_sum = float(loss_tensor[0].item())
"""


def test_an_epoch_loop_body_runs_once_per_epoch() -> None:
    assert not _findings(EPOCHS.replace("VAR", "epoch"))


def test_an_iteration_loop_around_batches_stays_hot() -> None:
    # the same shape over iterations (an RL update per rollout) is per step; a loop counting to
    # a number of epochs is an epoch loop whatever its variable is called (session 50,
    # triage50b: ``device_loops.epoch_loop``), so the twin counts iterations as well
    iterations = EPOCHS.replace("VAR", "iteration").replace("self.epochs", "self.num_iterations")
    assert _findings(iterations) == [16]
    assert not _findings(EPOCHS.replace("VAR", "iteration"))


# -- a host-in, host-out wrapper ----------------------------------------------------------------

WRAPPER = """
    import numpy as np
    import torch

    class DepthDetector:
        def __call__(self, image):
            x = torch.from_numpy(image).unsqueeze(0).to(self.device)
            with torch.no_grad():
                depth = self.model(x)
            depth = depth.cpu().numpy().astype(np.uint8)
            return depth
"""


def test_a_host_in_host_out_call_returns_its_copy() -> None:
    assert not _findings(WRAPPER)


def test_a_module_or_a_tensor_in_call_keeps_its_copy() -> None:
    # an nn.Module's __call__-like wrapper, and a __call__ whose input is a tensor already
    # Session 38 (outputs38b): a copy of a device-unknown output returned as numpy, outside
    # loops, by a ``__call__`` not hot by name is a request's output (request_outputs.py),
    # module or not, host input or not; a copy the function goes on computing with stays.
    module = WRAPPER.replace("class DepthDetector:", "class DepthDetector(torch.nn.Module):")
    assert _findings(module) == []
    tensor_in = WRAPPER.replace("torch.from_numpy(image)", "image")
    assert _findings(tensor_in) == []
    computed = tensor_in.replace("return depth", "return depth.sum()")
    assert _findings(computed) == [10]


# -- a first-iteration branch -------------------------------------------------------------------

DECODE = """
    import torch
    from torch import Tensor

    class Inference:
        def logits(self, tokens: Tensor, audio_features: Tensor) -> Tensor:
            return self.model.decoder(tokens, audio_features)

    class DecodingTask:
        def __init__(self, model):
            self.inference = Inference(model)

        def _main_loop(self, audio_features: Tensor, tokens: Tensor):
            no_speech_probs = None
            for i in range(self.sample_len):
                logits = self.inference.logits(tokens, audio_features)
                if TEST and self.no_speech is not None:
                    probs_at_sot = logits[:, 0].float().softmax(dim=-1)
                    no_speech_probs = probs_at_sot[:, self.no_speech].tolist()
                next_tokens = logits[:, -1].argmax(dim=-1, keepdim=True)
                tokens = torch.cat([tokens, next_tokens], dim=-1)
            return tokens, no_speech_probs
"""


def test_a_first_iteration_branch_runs_once() -> None:
    assert not _findings(DECODE.replace("TEST", "i == 0"))
    assert not _findings(DECODE.replace("TEST", "0 == i"))


def test_other_branches_stay_per_step() -> None:
    assert _findings(DECODE.replace("TEST", "i == 1")) == [19]
    assert _findings(DECODE.replace("TEST", "i >= 0")) == [19]


def test_first_iteration_needs_a_counter_from_zero() -> None:
    code = "for i in range(1, n):\n    if i == 0:\n        x = 1\n"
    module = cst.parse_module(code)
    loop = module.body[0]
    assert isinstance(loop, cst.For)
    branch = loop.body.body[0]
    assert isinstance(branch, cst.If)
    assert not first_iteration([module, loop, loop.body, branch, branch.body], loop)
    enumerated = cst.parse_module(
        code.replace("range(1, n)", "enumerate(xs)").replace("i", "(i, x)", 1)
    )
    loop = enumerated.body[0]
    assert isinstance(loop, cst.For)
    branch = loop.body.body[0]
    assert isinstance(branch, cst.If)
    assert first_iteration([enumerated, loop, loop.body, branch, branch.body], loop)


# -- a validation pass run now and then ---------------------------------------------------------

TRAIN = """
class Trainer:
    def train(self):
        while self.step < self.steps:
            self.step += 1
            self.train_step(next(self.data))
            if self.config.validator.enable and self.validator.should_validate(self.step):
                self.validator.validate(self.model_parts, self.step)
            if self.should_launch(self.step):
                self.launcher.run(self.step)
"""


def test_a_validation_guard_is_occasional() -> None:
    guarded = _steps(ast.parse(TRAIN))["guarded"]["Trainer.train"]
    assert any(first <= 8 <= last for first, last in guarded)
    assert not any(first <= 10 <= last for first, last in guarded)  # not a validation word


# -- a transform that only datasets build -------------------------------------------------------

TRANSFORM = """
import torch
from torch import nn


class VolumeNorm(nn.Module):
    def __call__(self, signal):
        energy = torch.mean(signal**2)
        if energy < self.energy_threshold:
            return signal
        return signal / signal.abs().max()
"""

BUILDER = """
from torch import nn

from .utils import VolumeNorm


class AudioPipeline:
    def preprocess(self, audio):
        augs = nn.Sequential(VolumeNorm())
        return augs(audio)
"""


def test_a_transform_only_datasets_build_runs_on_host_samples(tmp_path: Path) -> None:
    """stable-audio-tools' ``VolumeNorm``: defined in ``data/utils.py``, built only by
    ``data/dataset.py``'s preprocessing; the same class built by a loader stays an entry."""
    from click.testing import CliRunner

    from h2dlint.cli import main

    def reports(name: str, builder: str, folder_name: str = "data") -> bool:
        root = tmp_path / name
        data = root / "pkg" / folder_name
        data.mkdir(parents=True)
        (root / "pkg" / "__init__.py").write_text("")
        (data / "__init__.py").write_text("")
        (data / "utils.py").write_text(TRANSFORM)
        (data / builder).write_text(BUILDER)
        args = ["check", "--no-cache", "--select", "HTD202", "-j", "1", str(root / "pkg")]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        return "utils.py" in result.output

    assert not reports("dataset", "dataset.py")
    assert not reports("collate", "collate_fns.py")
    # built by a loader (a device prefetcher may run it), or outside a data folder
    assert reports("loader", "loader.py")
    assert reports("model", "dataset.py", folder_name="models")

"""The caller chain behind HTD202's output copies (session 38, outputs38;
``h2dlint/analysis/once_outputs.py``): a host copy that a function returns or hands to numpy,
outside its loops, is no per-step sync when every caller the project index finds runs the
function once per call of its own, outside loops, up to a cold caller (a pipeline's per-request
``__call__``). Its twins keep their findings: a function called from a step, one nothing in the
project calls (a plain class's ``__call__``, a torch module's ``forward``: unknown callers are
no proof of a request), a copy of the function's own input parameter (a step's input handed to
a host runtime), a copy kept on the object as host state."""

from __future__ import annotations

from pathlib import Path

from lint_runs import package_records

CHECKER = """
import torch
class SafetyChecker:
    def __call__(self, images):
        scores = self.model(images.to("cuda"))
        return scores.cpu().numpy()
class Vocoder(torch.nn.Module):
    def forward(self, mel):
        wave = self.net(mel.to("cuda"))
        return wave.cpu()
class RuntimeWrapper:
    def __call__(self, input_ids, past=None):
        input_ids = input_ids[0].detach().cpu().numpy()
        logits, state = self.runtime.forward(input_ids, past)
        return logits, state
"""

RUNNER = """
import torch
class AudioPipeline:
    def __call__(self, x):
        for t in range(10):
            x = self.step(x)
        return self.decode(x)
    def step(self, x):
        ids = torch.argmax(self.model(x), -1).to("cuda")
        return self.pick(ids)
    def pick(self, ids):
        return ids.cpu()
    def decode(self, x):
        y = self.model(x).to("cuda")
        self.keep(y)
        return y.cpu()
    def keep(self, y):
        self.counts = torch.bincount(y).cpu().numpy()
"""

HELPERS = """
import torch
def fold_outputs(coords):
    coords = coords.to("cuda")
    return coords.cpu()
def token_ids(logits):
    ids = logits.to("cuda").argmax(-1)
    return ids.cpu()
"""

CALLERS = """
import torch
from pkg.helpers import fold_outputs, token_ids
class FoldingPipeline:
    def __call__(self, batch):
        for step in range(8):
            batch = self.trunk(batch)
        return self.decode(batch)
    def decode(self, batch):
        return fold_outputs(batch)
class Engine:
    def step(self, logits):
        return token_ids(logits)
"""


def _findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    records = package_records(tmp_path, files, "HTD202")
    return sorted((Path(f["filename"]).name, f["location"]["row"]) for f in records)


def test_unknown_callers_keep_the_finding(tmp_path: Path) -> None:
    # Nothing in the project calls them: no proof of a request. A plain class's ``__call__``
    # may be a framework's per-step hook (fastchat's RWKV wrapper, lerobot's processor steps),
    # a module's ``forward`` runs under the user's loop of steps as often as not.
    # (Line 6, a numpy array returned as it is, is left alone by outputs38b's shape rule,
    # ``analysis/request_outputs.py``, merged on main before this module.)
    found = _findings(tmp_path, {"checker.py": CHECKER})
    assert found == [("checker.py", 10), ("checker.py", 13)]


def test_a_method_a_pipeline_calls_once_after_its_loop_is_not_per_step(tmp_path: Path) -> None:
    # ``decode`` (hot by its name) is called once, after the loop, by a pipeline's
    # ``__call__`` (once per request): its returned copy is the output. ``pick`` is called from
    # ``step`` (hot by its name); ``keep`` once, but it keeps its copy on the object as host
    # state (kvpress's counts, read back into the masks the device applies): no output.
    found = _findings(tmp_path, {"runner.py": RUNNER})
    assert ("runner.py", 16) not in found
    assert ("runner.py", 12) in found
    assert ("runner.py", 18) in found


def test_the_chain_crosses_modules(tmp_path: Path) -> None:
    # ``fold_outputs`` is called by ``decode`` (hot by its name), which only a pipeline's
    # ``__call__`` calls, once after its loop (two hops up); ``token_ids`` by an engine's
    # ``step``, which nothing in the project calls.
    found = _findings(tmp_path, {"helpers.py": HELPERS, "callers.py": CALLERS})
    assert found == [("helpers.py", 8)]


# Session 39 (calls39): calls of objects resolved to their class's ``forward``/``__call__``
# (``h2dlint/project/object_callers.py``).
MODELS = """
import torch
from torch import nn
class SafetyChecker(nn.Module):
    def forward(self, clip_input):
        scores = self.head(clip_input)
        return scores.cpu()
class Vocoder(nn.Module):
    def forward(self, mel):
        wave = self.net(mel)
        return wave.cpu()
class StreamVocoder(nn.Module):
    def forward(self, mel):
        wave = self.net(mel)
        return wave.cpu()
class Escaping(nn.Module):
    def forward(self, mel):
        wave = self.net(mel)
        return wave.cpu()
"""

PIPELINES = """
from pkg.models import SafetyChecker, Vocoder, StreamVocoder, Escaping
class ImagePipeline:
    def __init__(self, unet, safety_checker: SafetyChecker):
        self.register_modules(unet=unet, safety_checker=safety_checker)
    def run_safety_checker(self, image):
        return self.safety_checker(image)
    def __call__(self, x):
        for t in range(10):
            x = self.unet(x, t)
        return self.run_safety_checker(x)
class SpeechPipeline:
    def __init__(self):
        self.vocoder = Vocoder.from_pretrained("v")
        self.streamer = StreamVocoder()
    def __call__(self, mel):
        for t in range(10):
            mel = self.refine(mel)
        return self.vocoder(mel)
    def stream(self, mels):
        for mel in mels:
            yield self.streamer(mel)
def load_vocoder():
    return Escaping()
"""


def test_object_calls_resolve_to_forward(tmp_path: Path) -> None:
    # VALID: the safety checker (an attribute registered from an annotated ``__init__``
    # parameter, diffusers' ``register_modules``) is called by ``run_safety_checker``, once
    # after the pipeline's loop; the vocoder (``from_pretrained``) once by the pipeline's
    # ``__call__``. INVALID: the streaming vocoder's object is called per chunk in a loop; an
    # object of ``Escaping`` is returned by a loader (its calls are not all known).
    found = _findings(tmp_path, {"models.py": MODELS, "pipes.py": PIPELINES})
    assert found == [("models.py", 15), ("models.py", 19)]


def test_an_object_nobody_in_the_project_calls_keeps_the_finding(tmp_path: Path) -> None:
    # The class is exported and its objects are called by the package's users only: no
    # proof of a request (session 39 kept this rule on the labels).
    found = _findings(tmp_path, {"models.py": MODELS})
    assert found == [("models.py", 7), ("models.py", 11), ("models.py", 15), ("models.py", 19)]


VERDICTS = """
import numpy as np
from torch import nn
class WatermarkChecker(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 1)
    def forward(self, clip_input, images):
        flags = (self.head(clip_input) > 0.5).tolist()
        for i, flag in enumerate(flags):
            if flag:
                images[i] = np.zeros(images[i].shape)
        return images, flags
class StepChecker(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 1)
    def forward(self, latents):
        flags = (self.head(latents) > 0.5).tolist()
        return latents, flags
"""

VERDICT_CALLERS = """
from pkg.verdicts import WatermarkChecker, StepChecker
class ImagePipeline:
    def __init__(self, checker: WatermarkChecker, guard: StepChecker):
        self.register_modules(checker=checker, guard=guard)
    def __call__(self, x):
        for t in range(10):
            x, flags = self.guard(self.unet(x, t))
        return self.checker(x, x)
"""


def test_a_verdict_bound_to_a_returned_name_is_an_output_once_proven(tmp_path: Path) -> None:
    # VALID: ``flags`` is read on the way (to blank images) and returned, in a ``forward``
    # whose only object call runs once after the pipeline's loop (deepfloyd's safety checker).
    # INVALID: the same shape in a checker the pipeline calls every step.
    found = _findings(tmp_path, {"verdicts.py": VERDICTS, "callers.py": VERDICT_CALLERS})
    assert found == [("verdicts.py", 19)]

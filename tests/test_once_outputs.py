"""The caller chain behind HTD202's output copies (session 38, outputs38;
``h2dlint/analysis/once_outputs.py``): a host copy that a function returns or hands to numpy,
outside its loops, is no per-step sync when every caller the project index finds runs the
function once per call of its own, outside loops, up to a cold caller or a request's entry (a
``__call__``/``predict...`` of a class that is no torch module, which nothing in the project
calls). Its twins keep their findings: a function called in a caller's loop, one called from a
step, a torch module's ``forward`` nobody in the project calls (a model runs under the user's
loop of steps), a copy of the function's own input parameter (a step's input handed to a host
runtime), a copy kept on the object as host state, a copy inside the function's own loop."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from h2dlint.cli import main

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
class Runner:
    def __call__(self, x):
        for t in range(10):
            x = self.step(x)
        return self.finish(x)
    def step(self, x):
        ids = torch.argmax(self.model(x), -1).to("cuda")
        return self.pick(ids)
    def pick(self, ids):
        return ids.cpu()
    def finish(self, x):
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
class FoldingPredictor:
    def predict(self, batch):
        for step in range(8):
            batch = self.trunk(batch)
        return fold_outputs(batch)
class Engine:
    def step(self, logits):
        return token_ids(logits)
"""


def _findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    args = ["-j1", "--no-cache", "--select", "HTD202", "--output-format", "json", str(package)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return sorted(
        (Path(f["filename"]).name, f["location"]["row"]) for f in json.loads(result.stdout)
    )


def test_a_request_entrys_output_is_not_reported_a_modules_forward_is(tmp_path: Path) -> None:
    # The plain class's ``__call__`` is an entry nothing calls: its numpy result, once per
    # request. The vocoder's ``forward`` nobody in the project calls may run per step, and so
    # may a wrapper's ``__call__`` that hands its input to a host runtime (fastchat's RWKV
    # wrapper, called by a generation loop through a variable: each step's ids).
    found = _findings(tmp_path, {"checker.py": CHECKER})
    assert found == [("checker.py", 10), ("checker.py", 13)]


def test_a_helper_called_once_after_the_loop_is_not_one_called_per_step(tmp_path: Path) -> None:
    # ``finish`` is called once, after the loop; ``pick`` from ``step`` (hot by its name);
    # ``keep`` once too, but it keeps its copy on the object as host state (kvpress's counts,
    # read back into the masks the device applies), which is no output.
    found = _findings(tmp_path, {"runner.py": RUNNER})
    assert ("runner.py", 16) not in found
    assert ("runner.py", 12) in found
    assert ("runner.py", 18) in found


def test_the_chain_crosses_modules(tmp_path: Path) -> None:
    # ``fold_outputs`` is called once by a predictor's ``predict`` after its loop; ``token_ids``
    # by an engine's ``step``.
    found = _findings(tmp_path, {"helpers.py": HELPERS, "callers.py": CALLERS})
    assert ("helpers.py", 5) not in found
    assert ("helpers.py", 8) in found

"""The caller chain behind HTD202's output copies (session 38, outputs38;
``h2dlint/analysis/once_outputs.py``): a host copy that a function returns or hands to numpy,
outside its loops, is no per-step sync when every caller the project index finds runs the
function once per call of its own, outside loops, up to a cold caller (a pipeline's per-request
``__call__``). Its twins keep their findings: a function called from a step, one nothing in the
project calls (a plain class's ``__call__``, a torch module's ``forward``: unknown callers are
no proof of a request), a copy of the function's own input parameter (a step's input handed to
a host runtime), a copy kept on the object as host state."""

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

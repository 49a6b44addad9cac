"""benchmarks/cold_phases.py --questions: HTD202's questions and the hot paths' parts are found
and timed where the rule asks them.

A question renamed or no longer imported by the rule must fail here, not leave its phase of
the table silently empty. No timing is asserted, only what was counted.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "cold_phases.py"

# A method of a trainer-like class: hot by its name (``training_step``), an ``if`` on a device
# tensor, a read, a subscript; a second class whose method is cold by its name (``setup``).
HOT = """\
import torch


class Model:
    def training_step(self, batch):
        x = torch.ones(4, device="cuda")
        if x.sum() > 0:
            total = x.item()
        return x[x > 0], total

    def setup(self):
        if torch.cuda.is_available():
            return 1
"""


def _load_script() -> object:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        return importlib.import_module("cold_phases")
    finally:
        sys.path.remove(str(SCRIPT.parent))


def test_every_question_names_a_function_of_its_module() -> None:
    script = _load_script()
    questions = script.QUESTIONS  # type: ignore[attr-defined]
    assert questions, "no questions"
    for module_name, attribute, _phase in questions:
        owner: object = importlib.import_module(module_name)
        for part in attribute.split("."):
            owner = getattr(owner, part)
        assert callable(owner), (module_name, attribute)
    phases = [phase for _m, _a, phase in questions]
    assert len(set(phases)) == len(phases)
    assert not set(phases) & {phase for _m, _a, phase in script.PHASES}  # type: ignore[attr-defined]


def test_questions_are_counted_inside_the_rule(tmp_path: Path) -> None:
    tree = tmp_path / "tiny"
    tree.mkdir()
    (tree / "train.py").write_text(HOT)
    out = tmp_path / "q"
    args = ["--", "--no-cache", "-j", "1", "--exit-zero", "--select", "HTD202", str(tree)]
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), "--questions", *args],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "HTD202" in run.stdout  # the finding is still made with the questions timed
    (path,) = sorted(out.glob("[0-9]*.json"))
    counts = json.loads(path.read_text())
    calls = counts["calls"]
    assert calls["HTD202 asks tested_tensor"] >= 1  # the ``if`` of the hot method
    assert calls["HTD202 asks explicit_sync"] >= 1
    assert calls["hot paths: the module's propagation"] == 1  # once per file
    assert calls["hot paths: is a function cold"] >= 2
    seconds = counts["seconds"]
    own = sum(v for k, v in seconds.items() if k != "all of the process (process_time)")
    assert own <= seconds["all of the process (process_time)"] + 1e-6  # no time counted twice
    plain = tmp_path / "plain"
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(plain), *args], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    (path,) = sorted(plain.glob("[0-9]*.json"))
    assert not any("HTD202 asks" in k for k in json.loads(path.read_text())["calls"])

"""The analysis facts behind session 37's blind-style triage (docs/precision.md, "Session 37
(triage37)"), with the twins that must keep their verdict: an early exit whose test is a bare
remainder of a step counter (``if total_steps % self.checkpoint_every: return``, imagen-pytorch's
trainer) is true on the steps off the period, so what follows it runs once every N steps, in
the function itself, in the methods of its module it calls (``hot_calls``), and in the
functions of other modules it calls (the project index's ``steps`` part); the remainder of a
size is no period. And a miss: a value compared in an ``if`` test of a ``while`` loop whose
body runs the model (``if nxt == eos: break``, RIFE's ``if ssim > 0.996:``) is read on every
iteration; a Python counter compared is not."""

from __future__ import annotations

import json
from pathlib import Path

import libcst as cst
from click.testing import CliRunner
from lint_runs import package_records

from h2dlint.analysis.periodic_exits import periodic_exit
from h2dlint.analysis.value_syncs import compared_value
from h2dlint.cli import main

TRAINER = """
import torch
class ImagenTrainer(torch.nn.Module):
    def save_to_checkpoint_folder(self):
        total_steps = int(self.steps.sum().item())
        torch.save(self.state_dict(), f"checkpoint.{total_steps}.pt")
    def update(self):
        self.optimizer.step()
        self.steps += 1
        total_steps = int(self.steps.sum().item())
        if total_steps % self.checkpoint_every:
            return
        self.save_to_checkpoint_folder()
    def train_step(self, batch):
        loss = self.unet(batch)
        loss.backward()
        self.update()
"""

CHECKPOINTS = """
import torch
def trim(mask, hidden):
    n = int(mask.sum().item())
    return hidden[:, :n]
"""

CALLER = """
import torch
from pkg.checkpoints import trim
class Trainer(torch.nn.Module):
    def training_step(self, batch):
        loss = self.model(batch)
        loss.backward()
        if self.global_step % self.log_every != 0:
            return loss
        self.last = trim(batch.mask, loss)
        return loss
"""


def _findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    records = package_records(tmp_path, files, "HTD202")
    return sorted((Path(f["filename"]).name, f["location"]["row"]) for f in records)


def _exit(code: str) -> cst.BaseStatement:
    return cst.parse_module(code).body[0]


def test_a_bare_remainder_of_a_step_counter_exits_off_the_period() -> None:
    assert periodic_exit(_exit("if total_steps % self.checkpoint_every:\n    return\n"))
    assert periodic_exit(_exit("if self.step % 10 != 0:\n    return\n"))
    # A size's remainder, an exit on the period's steps, a raise: no period of steps.
    assert not periodic_exit(_exit("if batch.shape[0] % self.chunk:\n    return\n"))
    assert not periodic_exit(_exit("if step % 10 == 0:\n    return\n"))
    assert not periodic_exit(_exit("if step % 10:\n    raise ValueError(step)\n"))


def test_a_method_called_past_the_exit_is_not_per_step(tmp_path: Path) -> None:
    # The step counter read before the exit (line 10) stays; the checkpoint's (5) does not.
    assert _findings(tmp_path, {"trainer.py": TRAINER}) == [("trainer.py", 10)]


def test_the_exits_twin_a_sizes_remainder_keeps_the_callee_hot(tmp_path: Path) -> None:
    twin = TRAINER.replace("total_steps % self.checkpoint_every", "batch_size % self.chunk")
    assert ("trainer.py", 5) in _findings(tmp_path, {"trainer.py": twin})


def test_a_function_of_another_module_called_past_the_exit(tmp_path: Path) -> None:
    files = {"checkpoints.py": CHECKPOINTS, "trainer.py": CALLER}
    assert ("checkpoints.py", 4) not in _findings(tmp_path, files)


def test_the_other_modules_twin_called_on_every_step(tmp_path: Path) -> None:
    every = CALLER.replace("self.global_step % self.log_every != 0", "batch is None")
    files = {"checkpoints.py": CHECKPOINTS, "trainer.py": every}
    assert ("checkpoints.py", 4) in _findings(tmp_path, files)


GREEDY = """
import torch
def greedy(model, ids, eos):
    while True:
        logits = model(ids)
        nxt = torch.argmax(logits[:, -1], dim=-1)
        ids = torch.cat([ids, nxt[:, None]], dim=-1)
        if nxt == eos:
            break
    return ids
"""


def test_a_compared_value_is_read_only_where_it_is_a_value() -> None:
    def compared(code: str) -> str | None:
        found = compared_value(cst.parse_expression(code))
        return None if found is None else cst.Module([]).code_for_node(found)

    assert compared("nxt == eos") == "nxt"
    assert compared("not score > 0.996") == "score"
    assert compared("self.ids[i] != pad") == "self.ids[i]"
    # identity, membership, None, strings and chained comparisons are no tensor reads
    assert compared("x is None") is None
    assert compared("x == None") is None
    assert compared("mode == 'greedy'") is None
    assert compared("tok in stops") is None
    assert compared("0 < x < 1") is None


def test_a_comparison_tested_in_a_model_while_loop_is_read_per_step(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "greedy.py").write_text(GREEDY)
    (package / "counted.py").write_text(
        GREEDY.replace("nxt == eos", "len(ids) == eos").replace(
            "import torch\n", "import torch\n", 1
        )
    )
    args = ["-j1", "--no-cache", "--select", "HTD201", "--output-format", "json", str(package)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    found = sorted(
        (Path(f["filename"]).name, f["location"]["row"]) for f in json.loads(result.stdout)
    )
    # The `while` loop of greedy.py (line 4); counted.py tests a Python length, no tensor.
    assert found == [("greedy.py", 8)]

"""Session 41 (mine41): a closure installed as a block's ``forward`` calls a helper of another
module; a torch function of host-made inputs moved to the device; a training loop whose
backward pass runs in a helper.

agilerl 2.50.0: ``_install_packed_block`` defines ``packed_block_forward`` and installs it with
``cls.forward = packed_block_forward``; the closure calls ``packed_seq_idx`` (another module),
whose ``bool(seq_idx[:, -1].any())`` waited once per decoder block (2.58 memoizes it). The
callers index took the call for the set-up function's (``project/closure_callers.py``). Its
routed LoRA experts built ``torch.repeat_interleave(torch.arange(a, b), torch.tensor(counts))
.to(rows.device)`` per chunk (HTD301 saw through tensor methods of a constructor only), and its
DPO/SFT loops read ``loss.item()`` after ``self._backward_pass(loss)`` per micro-batch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lint_runs import lint, lint_project, write_files

PACKING = """
import torch

def packed_seq_idx(position_ids):
    first = position_ids[:, :1] - 1
    starts = torch.diff(position_ids, prepend=first, dim=-1) != 1
    seq_idx = starts.cumsum(-1, dtype=torch.int32)
    if not bool(seq_idx[:, -1].any()):
        return None
    return seq_idx
"""
INSTALL = """
from pkg.packing import packed_seq_idx

def _install_packed_block(block_cls):
    forward = block_cls.__dict__["forward"]

    def {name}(self, hidden_states, position_ids=None):
        seq_idx = packed_seq_idx(position_ids)
        if seq_idx is None:
            return forward(self, hidden_states)
        return self.mixer(hidden_states, seq_idx=seq_idx)

    {install}
"""


def _found(records: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r["code"]) for r in records
    )


def _project(tmp_path: Path, name: str, install: str) -> list[tuple[str, int, str]]:
    mamba = INSTALL.format(name=name, install=install)
    files = {"pkg/__init__.py": "", "pkg/packing.py": PACKING, "pkg/mamba.py": mamba}
    write_files(tmp_path, files)
    return _found(lint_project(tmp_path, "HTD202"))


def test_a_helper_called_by_an_installed_forward_closure_is_hot(tmp_path: Path) -> None:
    found = _project(tmp_path, "packed_block_forward", "block_cls.forward = packed_block_forward")
    assert found == [("packing.py", 8, "HTD202")]


def test_a_returned_forward_closure_makes_its_callee_hot(tmp_path: Path) -> None:
    assert _project(tmp_path, "new_forward", "return new_forward") == [("packing.py", 8, "HTD202")]


def test_a_closure_kept_inside_its_factory_or_named_cold_is_not_a_caller(tmp_path: Path) -> None:
    # Not handed out: called (if at all) only where the set-up function runs.
    assert _project(tmp_path, "packed_block_forward", "pass") == []
    # Handed out, but its name says nothing of a step.
    assert _project(tmp_path, "convert_weights", "block_cls.convert = convert_weights") == []


ROUTED = """
import torch

def expert_ids(counts: list[int], start: int, stop: int, rows, repeats):
    a = torch.repeat_interleave(torch.arange(start, stop), torch.tensor(counts)).to(rows.device)
    b = torch.repeat_interleave(torch.tensor(counts), repeats).to(rows.device)
    c = torch.repeat_interleave(torch.arange(start, stop, device=rows.device), repeats)
    return a, b, c
"""


def test_a_torch_function_of_host_made_inputs_moved_is_host_work() -> None:
    # ``repeats`` may be a device tensor (``b``); ``c`` is made on the device.
    assert sorted(f.start.row for f in lint(ROUTED, "HTD301")) == [5]


LEARN = """
class Trainer:
    def learn(self, batches, metrics):
        for batch in batches:
            loss = self._loss(batch)
            {backward}
            metrics["loss"] += loss.item()
        return metrics
"""


def test_a_loop_whose_backward_runs_in_a_helper_reads_per_step() -> None:
    for backward in ("self._backward_pass(loss)", "backward_step(loss, self.model)"):
        assert [f.start.row for f in lint(LEARN.format(backward=backward), "HTD202")] == [7]


def test_calls_that_only_name_a_backward_are_no_device_work() -> None:
    for call in (
        "self.register_backward_hook(loss)",
        "ctx.save_for_backward(loss)",
        "backward_compatible_load(loss)",
    ):
        assert [f.start.row for f in lint(LEARN.format(backward=call), "HTD202")] == []

"""Session 51 (fp51): two classes of HTD201/HTD202 false alarms still reported on code never
read before (docs/precision.md, "Session 51 (fp51)"), each with the look-alike that must keep
its verdict:

- a lookup in a sorted tensor (``torch.bucketize``, ``torch.searchsorted``) runs only with
  both tensors on one device, so a host tensor among them places the result on the host
  (RLinf 0.3.0 ``data/replay_buffer.py:634``: ``torch.randint`` draws bucketed against the
  buffer's ends; analysis/provenance/calls.py);
- a method whose every call in its module sits under a periodic gate that is no gradient
  accumulation's (``if not (step % self.validate_every_step): self.valid_step(...)``), nor
  holds an ``or``, and which no other module calls, runs every N steps whatever its name says
  (magvit2-pytorch 0.5.1 ``trainer.py:481``: analysis/once.py)."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

BUCKETS = """
import torch


class ReplayBuffer:
    def sample(self, num, total, ends):
        ids = SOURCE
        buckets = LOOKUP
        picked = []
        for i in range(num):
            picked.append(int(buckets[i]))
        return picked
"""


def _buckets(source: str, lookup: str) -> str:
    return BUCKETS.replace("SOURCE", source).replace("LOOKUP", lookup)


def test_bucketize_of_host_draws_is_host(tmp_path: Path) -> None:
    text = _buckets("torch.randint(0, total, (num,))", "torch.bucketize(ids, ends, right=True)")
    assert cli_rows(tmp_path, text, "HTD201") == []


def test_searchsorted_against_host_values_is_host(tmp_path: Path) -> None:
    # ``ends`` of unknown place searched for host values: PyTorch needs both on one device.
    text = _buckets("torch.randint(0, total, (num,))", "torch.searchsorted(ends, ids)")
    assert cli_rows(tmp_path, text, "HTD201") == []


def test_bucketize_of_unknown_tensors_stays_reported(tmp_path: Path) -> None:
    text = _buckets("self.ids", "torch.bucketize(ids, ends, right=True)")
    assert cli_rows(tmp_path, text, "HTD201") == [11]


def test_python_number_looked_up_says_nothing(tmp_path: Path) -> None:
    # ``torch.bucketize(3, ends)`` is on the boundaries' device: a number is no host tensor.
    text = _buckets("3", "torch.bucketize(total, ends)")
    assert cli_rows(tmp_path, text, "HTD201") == [11]


def test_device_tensor_looked_up_stays_reported(tmp_path: Path) -> None:
    text = _buckets('torch.randint(0, total, (num,), device="cuda")', "torch.bucketize(ids, ends)")
    assert cli_rows(tmp_path, text, "HTD201") == [11]


TRAINER = """
import torch


class Trainer:
    def valid_step(self, batch):
        video = self.model(batch)
        return video.cpu()

    def train(self, loader):
        for step, batch in enumerate(loader):
            loss = self.model(batch)
            loss.backward()
            if GATE:
                self.valid_step(batch)
"""


def test_step_named_method_called_every_n_steps_is_not_hot(tmp_path: Path) -> None:
    text = TRAINER.replace("GATE", "not (step % self.validate_every_step)")
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_step_named_method_called_every_step_stays_hot(tmp_path: Path) -> None:
    text = TRAINER.replace("GATE", "self.validate")
    assert cli_rows(tmp_path, text, "HTD202") == [8]


def test_method_also_called_ungated_stays_hot(tmp_path: Path) -> None:
    text = TRAINER.replace("GATE", "not (step % self.validate_every_step)") + (
        "\n    def finetune(self, loader):\n        for batch in loader:\n"
        "            self.valid_step(batch)\n"
    )
    assert cli_rows(tmp_path, text, "HTD202") == [8]


def test_gate_with_an_or_is_not_periodic(tmp_path: Path) -> None:
    # TRL 1.16's buffer refill: ``buffer_steps`` is the accumulation steps, and the ``or``
    # holds on other calls too; the refill (and its copies) stays per step.
    text = TRAINER.replace("GATE", "step % buffer_steps == 0 or self._buffered is None")
    assert cli_rows(tmp_path, text, "HTD202") == [8]


def test_gradient_accumulation_gate_is_per_step(tmp_path: Path) -> None:
    # An optimizer step at the end of each accumulation window runs every training step.
    text = """
import torch


class Trainer:
    def optimizer_step(self):
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.last_norm = norm.item()
        self.optimizer.step()

    def train(self, loader):
        for step, batch in enumerate(loader):
            loss = self.model(batch)
            loss.backward()
            if (step + 1) % self.grad_accum_steps == 0:
                self.optimizer_step()
"""
    assert cli_rows(tmp_path, text, "HTD202") == [8]


def test_periodic_method_with_a_loop_of_its_own_stays_hot(tmp_path: Path) -> None:
    # Session 51 (lead): instructlab-training 0.16.2's ``compute_validation_loss``, called
    # ``if global_step % validation_frequency == 0``, reads a loss per validation batch: each
    # pass syncs once per batch (a true row, triage50a); only a loop-free method is exempt.
    text = """
import torch


class Trainer:
    def valid_step(self, loader):
        total = 0.0
        for batch in loader:
            mb = batch.to(self.device)
            out = self.model(mb)
            total += out.sum().item()
        return total

    def train(self, loader):
        for step, batch in enumerate(loader):
            loss = self.model(batch)
            loss.backward()
            if not (step % self.validate_every_step):
                self.valid_step(loader)
"""
    assert cli_rows(tmp_path, text, "HTD202") == [11]

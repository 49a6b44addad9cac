"""Session 42 (rebind42): a name rebound by arithmetic on itself keeps what was proven about it
(docs/recall.md, "Session 42 (rebind42)").

Gradient accumulation (gliner2 1.3.2's trainer): ``loss = outputs["total_loss"]``, then ``loss
= loss / accumulation_steps`` under an ``if``, then ``loss.backward()`` and ``tr_loss +=
loss.item()`` every step. ``loss.backward()`` proves ``loss`` a tensor only for a name bound
once; a rebinding by arithmetic on itself (``loss / n``, ``loss * w``, ``loss /= n``,
``loss.mean()``) keeps a tensor a tensor, so it no longer counts as a second binding. A
rebinding that makes another kind of value (``loss = loss.tolist()``, a call's result) still
does; a name that starts as a number (``total = 0.0`` then ``total = total + loss``) is a host
number where it is read before its updates.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from lint_runs import cli_rows

from h2dlint.analysis.self_rebindings import keeps_kind

TRAINER = """
class Trainer:
    def train(self, loader, steps):
        tr_loss = 0.0
        for step, batch in enumerate(loader):
            outputs = self.model(batch)
            loss = outputs["total_loss"]
            if steps > 1:
                {rebinding}
            loss.backward()
            self.optimizer.step()
            tr_loss += loss.item()
        return tr_loss
"""


@pytest.mark.parametrize(
    "rebinding",
    [
        "loss = loss / steps",
        "loss = loss * self.weight / steps",
        "loss /= steps",
        "loss = loss.mean()",
        "loss = -loss",
    ],
)
def test_a_loss_rebound_by_arithmetic_on_itself_stays_a_tensor(
    tmp_path: Path, rebinding: str
) -> None:
    assert cli_rows(tmp_path, TRAINER.format(rebinding=rebinding), "HTD202") == [12]


@pytest.mark.parametrize(
    "rebinding",
    [
        "loss = self.scale(loss)",  # a call's value: may be anything
        "loss = outputs['aux']",  # another value
        "loss = loss.tolist()",  # no tensor any more
    ],
)
def test_other_rebindings_still_count(tmp_path: Path, rebinding: str) -> None:
    assert cli_rows(tmp_path, TRAINER.format(rebinding=rebinding), "HTD202") == []


ACCUMULATOR = """
class Trainer:
    def train(self, loader):
        for batch in loader:
            outputs = self.model(batch)
            total = 0.0
            print(float(total))
            for term in outputs["terms"]:
                total = total + term
            total.backward()
            self.optimizer.step()
"""


def test_an_accumulator_read_while_still_a_number_is_no_read(
    tmp_path: Path,
) -> None:
    # ``float(total)`` of the number 0.0 (provenance: host): its later updates make a tensor
    # of it (``total.backward()``), not before.
    assert cli_rows(tmp_path, ACCUMULATOR, "HTD202") == []


def _expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def test_keeps_kind() -> None:
    assert keeps_kind("loss", _expr("loss / n"))
    assert keeps_kind("loss", _expr("w * loss"))
    assert keeps_kind("loss", _expr("loss.sum()"))
    assert not keeps_kind("loss", _expr("other / n"))
    assert not keeps_kind("loss", _expr("loss.item()"))
    assert not keeps_kind("loss", _expr("f(loss) / n"))
    assert not keeps_kind("loss", _expr("other.mean()"))


GENERIC = """
import torch
def decollate(batch, detach=True):
    if getattr(batch, "ndim", -1) == 0 and hasattr(batch, "item"):
        return batch.item() if detach else batch
    if isinstance(batch, torch.Tensor):
        if detach:
            batch = batch.{method}()
        return list(torch.unbind(batch, dim=0))
    return batch
class Interaction:
    def __call__(self, engine, batch):
        return decollate(engine.network(batch))
"""


@pytest.mark.parametrize("method", ["detach", "contiguous"])
def test_a_rebinding_that_proves_itself_a_tensor_under_a_guard_still_counts(
    tmp_path: Path, method: str
) -> None:
    # monai's ``decollate_batch``: ``batch = batch.detach()`` under ``isinstance(batch,
    # torch.Tensor)``; its ``.item()`` above is of a numpy or torch scalar, or nothing.
    assert cli_rows(tmp_path, GENERIC.format(method=method), "HTD202") == []

"""Session 49 (mine49): verl 0.7.0's ``ppo_loss`` and 0.8.0's ``value_loss`` read their losses
to the host for metrics (``pg_loss.detach().item()``) once per micro-batch; 0.7.1 and 0.9.0 keep
the tensors in ``Metric`` records. verl reaches the loss through a configured callable
(``loss_fn``), so no caller the project index follows made it hot. A function named for a loss
(``loss``/``losses`` last, or after ``compute``/``calc`` first) runs once per training batch
(``analysis/loss_names.py``, asked from ``hot_names.name_reason``). A name that builds, picks or
describes a loss, keeps loss values over an epoch, or computes a log's metrics stays cold.
"""

from __future__ import annotations

import pytest
from lint_runs import lint

from h2dlint.analysis.loss_names import loss_name

LOSS = """
import torch


def {name}(log_prob: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor):
    pg_loss = -(log_prob * advantages * mask).sum() / mask.sum()
    metrics = {{"pg_loss": pg_loss.detach().item()}}
    return pg_loss, metrics
"""


def _rows(name: str) -> list[int]:
    return sorted(f.start.row for f in lint(LOSS.format(name=name), "HTD202"))


@pytest.mark.parametrize(
    "name",
    [
        "ppo_loss",
        "value_loss",
        "_dice_loss",
        "loss",
        "compute_policy_loss_vanilla",
        "calc_loss_terms",
        "contrastive_losses",
    ],
)
def test_a_loss_is_hot(name: str) -> None:
    assert _rows(name) == [7]


@pytest.mark.parametrize(
    "name",
    [
        "build_loss",
        "make_loss",
        "get_loss",
        "init_loss",
        "log_loss",
        "epoch_loss",
        "average_loss",
        "best_loss",
        "compute_loss_metrics",
        "loss_stats",
        "evaluate_loss",
        # bookkeeping of a loss computed elsewhere (lmdeploy 0.18.0 `messages.py:865`)
        "append_ce_loss",
        "accumulate_loss",
        "record_loss",
        "loss_fn_factory",
        "plot_loss",
        "loss_weight",
    ],
)
def test_other_loss_names_stay_cold(name: str) -> None:
    assert _rows(name) == []


def test_loss_words() -> None:
    assert loss_name(["ppo", "loss"])
    assert loss_name(["compute", "policy", "loss", "vanilla"])
    assert not loss_name(["loss", "weight"])
    assert not loss_name(["policy", "loss", "fn"])
    assert not loss_name([])


def test_a_helper_of_a_loss_is_hot_through_it() -> None:
    code = """
import torch


def _slice_response(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    longest = offsets.max().item()
    return values[:, :longest]


def ppo_loss(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    return _slice_response(values, offsets).mean()
"""
    assert [f.start.row for f in lint(code, "HTD202")] == [6]


def test_a_metric_record_of_the_loss_is_no_read() -> None:
    code = """
import torch


def ppo_loss(log_prob: torch.Tensor, mask: torch.Tensor):
    pg_loss = -(log_prob * mask).sum() / mask.sum()
    return pg_loss, {"pg_loss": Metric(value=pg_loss, aggregation="token-mean")}
"""
    assert lint(code, "HTD202") == []

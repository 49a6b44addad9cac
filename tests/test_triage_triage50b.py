"""The analysis facts behind session 50's blind-style triage of model code never read
(docs/precision.md, "Session 50 (triage50b)"), each with the look-alike that must keep its
verdict:

- a device read through a string key (``self.param_groups[0]["params"][0].device``) does not
  make the rows of the collection tensors: an optimizer's hyperparameter groups are dicts of
  Python values (super-gradients 3.7.1 ``training/utils/optimizers/lamb.py:157``:
  analysis/row_tensors.py);
- a ``forward`` annotated to return text makes host text by purpose (torchani 2.9.0
  ``utils.py:315``: analysis/text_returns.py);
- a loss named for validation or test data runs once per evaluation pass (cornac 3.0.1
  ``models/letter/recom_letter.py:394``: analysis/loss_names.py);
- a loop that counts epochs (``for _ in pbar`` of ``pbar = trange(self.num_epochs)``) runs its
  own body once per epoch (cornac ``models/lightgcn/recom_lightgcn.py:188``:
  analysis/device_loops.py);
- the debugging arm of a conditional expression (``x = self._check() if self.configs.debug
  else None``) is not a per-call call (pypots 1.5 ``nn/modules/moment/backbone.py:627``:
  analysis/hot_calls.py)."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

OPTIMIZER = """
import torch
from torch.optim import Optimizer


class Lamb(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.01, trust_clip=False):
        defaults = dict(lr=lr, weight_decay=weight_decay, trust_clip=trust_clip)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        device = DEVICE_READ
        one_tensor = torch.tensor(1.0, device=device)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                update = p.grad.clone()
                weight_decay = group["weight_decay"]
                if weight_decay != 0:
                    update.add_(p, alpha=weight_decay)
                    g_norm = update.norm(2.0)
                    trust_ratio = torch.where(g_norm > 0, g_norm, one_tensor)
                    if group["trust_clip"]:
                        trust_ratio = torch.minimum(trust_ratio, one_tensor)
                    update.mul_(trust_ratio)
                p.add_(update, alpha=-group["lr"])
        return one_tensor
"""


def test_param_group_hyperparameters_are_not_tensor_rows(tmp_path: Path) -> None:
    text = OPTIMIZER.replace("DEVICE_READ", 'self.param_groups[0]["params"][0].device')
    assert cli_rows(tmp_path, text, "HTD201") == []


def test_a_device_read_of_an_item_still_makes_rows_tensors(tmp_path: Path) -> None:
    # ``self.param_groups[0][0].device``: the items are sequences of tensors, as before.
    text = OPTIMIZER.replace("DEVICE_READ", "self.param_groups[0][0].device")
    assert cli_rows(tmp_path, text, "HTD201") == [21]


CONVERTER = """
import torch
from torch import Tensor


class NumbersConvert(torch.nn.Module):
    def __init__(self, symbol_dict):
        super().__init__()
        self.symbol_dict = symbol_dict

    def forward(self, species: Tensor) -> RETURNS:
        species = species[species != -1]
        return [self.symbol_dict[int(x)] for x in species.tolist()]
"""


def test_a_forward_returning_text_is_not_hot_by_its_name(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, CONVERTER.replace("RETURNS", "list[str]"), "HTD202") == []


def test_a_forward_returning_tensors_stays_hot(tmp_path: Path) -> None:
    text = CONVERTER.replace("RETURNS", "Tensor")
    assert cli_rows(tmp_path, text, "HTD202") == [12, 13]


VALIDATION_LOSS = """
import torch


def NAME(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    keep = targets != -100
    return torch.nn.functional.cross_entropy(logits[keep], targets[keep])
"""


def test_a_validation_loss_is_not_per_training_batch(tmp_path: Path) -> None:
    for name in ("_validation_loss", "eval_loss", "compute_val_loss"):
        assert cli_rows(tmp_path, VALIDATION_LOSS.replace("NAME", name), "HTD202") == []


def test_a_training_loss_name_stays_hot(tmp_path: Path) -> None:
    for name in ("_training_loss", "compute_valid_token_loss"):
        assert cli_rows(tmp_path, VALIDATION_LOSS.replace("NAME", name), "HTD202") == [7, 7]


EPOCHS = """
import torch
from tqdm import trange


class Recommender:
    def fit(self, model, graph, loader, optimizer):
        pbar = COUNT
        for _ in pbar:
            for batch in loader:
                loss = model.loss(batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            u_embs, i_embs = model(graph)
            self.U = u_embs.cpu().detach().numpy()
"""


def test_a_loop_counting_epochs_reads_once_per_epoch(tmp_path: Path) -> None:
    for count in ("trange(self.num_epochs)", "range(1, self.n_epochs + 1)"):
        assert cli_rows(tmp_path, EPOCHS.replace("COUNT", count), "HTD202") == []


def test_a_loop_counting_steps_stays_per_iteration(tmp_path: Path) -> None:
    # An outer loop of steps around micro-batches: what it reads after them runs every step.
    text = EPOCHS.replace("COUNT", "trange(self.num_steps)")
    assert cli_rows(tmp_path, text, "HTD202") == [16]


DEBUG_CHECK = """
import torch


class Backbone(torch.nn.Module):
    def __init__(self, configs):
        super().__init__()
        self.configs = configs
        self.encoder = torch.nn.Linear(4, 4)

    def _check_weights(self):
        return torch.stack([torch.isnan(p).any() for p in self.encoder.parameters()]).any().item()

    def forward(self, x):
        y = self.encoder(x)
        bad = self._check_weights() if GATE else None
        return y, bad
"""


def test_a_debug_arm_of_a_conditional_expression_is_not_per_call(tmp_path: Path) -> None:
    text = DEBUG_CHECK.replace("GATE", "self.configs.debug")
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_a_plain_conditional_expression_stays_per_call(tmp_path: Path) -> None:
    text = DEBUG_CHECK.replace("GATE", "self.training")
    assert cli_rows(tmp_path, text, "HTD202") == [12]


METRIC = """
import torch
from torchmetrics import Metric


class ICLMetric(Metric):
    def update(self, batch, lm_logits: torch.Tensor):
        for idx, doc_id in enumerate(batch["doc_id"]):
            cont = batch["continuation"][idx][: batch["cont_len"][idx]]
            self.values.append(torch.tensor([doc_id]).to(batch["continuation"][idx].device))
            self.conts.append(cont)
"""


def test_a_key_on_the_batch_itself_still_makes_its_entries_tensors(tmp_path: Path) -> None:
    # ai2-olmo 0.6.0 ``eval/downstream.py:50`` (labelled true): ``batch["continuation"][idx]
    # .device`` says the batch's entries are tensors; the slice bound reads a row of one.
    assert cli_rows(tmp_path, METRIC, "HTD201") == [9]

"""Session 32 (recall32): misses with a general cause.

- A loss module chosen by branch (openrlhf 0.11.2's reward-model trainer: ``self.loss_fn =
  PairWiseLoss()`` or ``LogExpLoss()``, both ``nn.Module`` classes of another module): calling
  it runs a module, so its result is on the device and its ``.item()`` per step is a sync.
- A numpy array built from a Python list in the function, wrapped with ``torch.from_numpy`` and
  moved (lmcache 0.5.6's pointer table per KV transfer): HTD301's pageable copy.
- A metric's helper handing its own inputs to a host library (torchmetrics' PESQ and STOI, with
  the library imported inside the function): the hand-off the library needs, not reported.
- ``if x.device == torch.device("cpu"):`` guards host work (torchmetrics'
  ``normalize_logits_if_needed``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lint_runs import lint, lint_project, write_files

LOSSES = """
    import torch
    from torch import nn

    class PairWiseLoss(nn.Module):
        def forward(self, chosen, reject, margin=None):
            return -torch.nn.functional.logsigmoid(chosen - reject).mean()

    class LogExpLoss(nn.Module):
        def forward(self, chosen, reject, margin=None):
            return torch.log(1 + torch.exp(reject - chosen)).mean()

    class HostScore:
        def __call__(self, chosen, reject, margin=None):
            return float((chosen - reject).mean())
"""
TRAINER = """
    from pkg.losses import {first}, {second}

    class RewardModelTrainer:
        def __init__(self, model, optimizer, loss="sigmoid"):
            self.model = model
            self.optimizer = optimizer
            if loss == "sigmoid":
                self.loss_fn = {first}()
            else:
                self.loss_fn = {second}()

        def fit(self, batches):
            loss_sum = 0
            for chosen_ids, reject_ids in batches:
                chosen = self.model(chosen_ids)
                reject = self.model(reject_ids)
                preference_loss = self.loss_fn(chosen, reject)
                preference_loss.backward()
                self.optimizer.step()
                loss_sum += preference_loss.item()
            return loss_sum
"""


def _rows(records: list[dict[str, Any]], code: str) -> list[tuple[str, int, str]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r["confidence"] or "")
        for r in records
        if r["code"] == code
    )


def _trainer(root: Path, first: str, second: str) -> None:
    write_files(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/losses.py": LOSSES,
            "pkg/trainer.py": TRAINER.format(first=first, second=second),
        },
    )


def test_a_loss_module_chosen_by_branch_returns_a_device_tensor(tmp_path: Path) -> None:
    _trainer(tmp_path, "PairWiseLoss", "LogExpLoss")
    assert _rows(lint_project(tmp_path, "HTD202"), "HTD202") == [("trainer.py", 21, "high")]


def test_a_host_scorer_in_one_branch_proves_nothing(tmp_path: Path) -> None:
    _trainer(tmp_path, "PairWiseLoss", "HostScore")
    # still a tensor by its ``.backward()``, but not proven on the device: medium, as before
    assert _rows(lint_project(tmp_path, "HTD202"), "HTD202") == [("trainer.py", 21, "medium")]


TRANSFER = """
    import numpy as np
    import torch

    def gather(kv_caches, device):
        from pkg.layouts import data_ptrs
        ptrs = np.array(data_ptrs(kv_caches), dtype=np.uint64).view(np.int64)
        return torch.from_numpy(ptrs).to(device=device)

    def loaded(path, device):
        return torch.from_numpy(np.load(path)).to(device)

    def given(table: np.ndarray, device):
        return torch.from_numpy(np.asarray(table)).to(device)
"""
LAYOUTS = """
    def data_ptrs(kv_caches) -> list[int]:
        return [t.data_ptr() for t in kv_caches]
"""


def test_an_array_of_a_helpers_list_wrapped_and_moved(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/transfer.py": TRANSFER, "pkg/layouts.py": LAYOUTS},
    )
    records = lint_project(tmp_path, "HTD301")
    assert [(name, row) for name, row, _ in _rows(records, "HTD301")] == [("transfer.py", 8)]
    assert "torch.from_numpy" in records[0]["message"]


def test_from_numpy_of_a_parameters_array_stays_silent() -> None:
    code = """
        import numpy as np
        import torch
        def f(arr: np.ndarray, ids, device):
            a = torch.from_numpy(arr).to(device)
            b = torch.from_numpy(np.array(ids)).to(device)
            return a, b
    """
    assert lint(code, "HTD301") == []  # ``ids`` of unknown type: may already be an array


STOI = """
    import numpy as np
    import torch
    from torchmetrics import Metric

    def short_time_objective_intelligibility(preds: torch.Tensor, target: torch.Tensor, fs: int):
        if not AVAILABLE:
            raise ModuleNotFoundError("pystoi")
        from pystoi import stoi as stoi_backend

        if len(preds.shape) == 1:
            value = stoi_backend(target.detach().cpu().numpy(), preds.detach().cpu().numpy(), fs)
            return torch.tensor(value).to(preds.device)
        preds_np = preds.reshape(-1, preds.shape[-1]).detach().cpu().numpy()
        target_np = target.reshape(-1, preds.shape[-1]).detach().cpu().numpy()
        values = np.empty(shape=(preds_np.shape[0]))
        for b in range(preds_np.shape[0]):
            values[b] = stoi_backend(target_np[b, :], preds_np[b, :], fs)
        return torch.from_numpy(values).to(preds.device)

    def best_permutation(metric_mtx: torch.Tensor):
        from scipy.optimize import linear_sum_assignment
        return linear_sum_assignment(metric_mtx.softmax(-1).cpu().numpy())

    class ShortTimeObjectiveIntelligibility(Metric):
        def update(self, preds: torch.Tensor, target: torch.Tensor) -> None:
            self.sum_stoi += short_time_objective_intelligibility(preds, target, 16000).sum()
            self.perms.append(best_permutation(preds @ target.T))
"""


def test_a_metrics_inputs_handed_to_a_host_library_are_not_reported() -> None:
    found = [f.start.row for f in lint(STOI, "HTD202")]
    # only the computed matrix handed to scipy (line 23); STOI's inputs are its hand-off
    assert found == [23]


def test_a_cpu_test_of_the_tensors_device_guards_host_work() -> None:
    code = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x: torch.Tensor):
                if x.device == torch.device("cpu"):
                    if not torch.all((x >= 0) * (x <= 1)):
                        x = x.sigmoid()
                if x.device != torch.device("cpu"):
                    if bool(x.isnan().any()):
                        x = x.nan_to_num()
                return x
    """
    assert [f.start.row for f in lint(code, "HTD202")] == [9]  # the other arm's read

"""Session 31 (mine31): upstream fixes mined for the transfer and implicit-sync families.

torchrec 1.7.0 replaced ``get_segemented_ne_states_fused``'s ``torch.unique`` of the grouping
keys and its boolean-mask indexing per group with ``scatter_add_``: the function runs in
``SegmentedNEMetricComputation.update()``, a torchmetrics-style metric's ``update``, which a
training loop calls once per batch (``analysis/metric_updates.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lint_runs import lint, lint_project, write_files

from h2dlint.analysis.metric_updates import metric_update_reason

FUSED = """
    import torch

    def get_states_fused(labels: torch.Tensor, preds: torch.Tensor, grouping_keys: torch.Tensor, n):
        groups = torch.unique(grouping_keys)
        out = torch.zeros((2, n), device=labels.device)
        for group in groups:
            group_mask = grouping_keys == group
            group_labels = labels[:, group_mask]
            out[0, group] = group_labels.sum()
        return out

    def get_states_scatter(labels: torch.Tensor, grouping_keys: torch.Tensor, num_groups: int):
        out = torch.zeros(num_groups, dtype=torch.double, device=labels.device)
        out.scatter_add_(0, grouping_keys.long(), labels.double())
        return out
"""
METRIC = """
    from torchmetrics import Metric
    from pkg.states import get_states_fused, get_states_scatter

    class {cls}(Metric):
        def update(self, *, predictions, labels, grouping_keys):
            if self.fused:
                self.states = get_states_fused(labels, predictions, grouping_keys, 8)
            else:
                self.states = get_states_scatter(labels, grouping_keys, 8)
"""


def _found(records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"])
        for r in records
        if r["code"] == "HTD202"
    )


def _project(root: Path, cls: str) -> None:
    write_files(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/states.py": FUSED,
            "pkg/metric.py": METRIC.replace("{cls}", cls),
        },
    )


def test_a_metrics_update_makes_the_helpers_of_another_module_hot(tmp_path: Path) -> None:
    _project(tmp_path, "SegmentedNEMetricComputation")
    # unique() and the boolean mask of the fused helper; the scatter_add_ form is silent
    assert _found(lint_project(tmp_path, "HTD202")) == [("states.py", 5), ("states.py", 9)]


def test_a_logger_of_metrics_is_no_metric(tmp_path: Path) -> None:
    _project(tmp_path, "SegmentedMetricLogger")
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_metric_update_reason_by_the_class_and_its_bases() -> None:
    assert metric_update_reason("update", "SegmentedNEMetricComputation") is not None
    assert metric_update_reason("update", "NE", ("torchmetrics.Metric",)) is not None
    assert metric_update_reason("update", "NE", ("RecMetricComputation",)) is not None
    # not a metric's update: another method, another class, plural aggregates, recorders
    assert metric_update_reason("compute", "NE", ("Metric",)) is None
    assert metric_update_reason("update", "EMA", ("nn.Module",)) is None
    assert metric_update_reason("update", "TrainMetrics") is None
    assert metric_update_reason("update", "MetricLogger") is None
    assert metric_update_reason("update", "AverageMeter", ("Metric",)) is None


def test_an_update_of_no_metric_stays_cold() -> None:
    code = """
        import torch

        class Accumulator:
            def update(self, labels: torch.Tensor, keys: torch.Tensor):
                return torch.unique(keys)
    """
    assert lint(code, "HTD202") == []


def test_numbers_unpacked_into_masked_elements_are_masked_fills() -> None:
    """torchrec 1.5.1's NDCG: ``(a[mask], b[mask]) = (0.0, 0.0)`` fills, element by element;
    tensors written so go through ``nonzero`` and sync."""
    code = """
        import torch

        class M(torch.nn.Module):
            def forward(self, ranks: torch.Tensor, fill: torch.Tensor):
                a, b = self.discounts(ranks)
                (a[ranks <= 0], b[ranks <= 0]) = (0.0, 0.0)
                a[ranks > 9], [b[ranks > 9]] = 0.0, [0.0]
                (a[ranks == 3], b[ranks == 3]) = (fill, fill)
                a[ranks == 4], b[ranks == 4] = fill.unbind(0)
                return a, b
    """
    found = sorted((f.start.row, f.start.column) for f in lint(code, "HTD202"))
    # the tensors of line 9, one report per element written; line 10 unpacks a value whose
    # parts the statement does not show: each masked element is reported as before
    assert found == [(9, 10), (9, 25), (10, 9), (10, 24)]

"""Session 41 (misses41): branches a loop of model steps takes on its first few iterations only;
a count of matches compared inline or tested bare; a device row written into a host tensor.

ultralytics 8.4.190's ``BaseValidator.__call__`` plots the first three batches of a validation
(``if self.args.plots and batch_i < 3:``): the plot's host copies (``plotting.py:903``) ran
per batch by the project index, whose occasional calls were ``% N`` periods only
(``analysis/first_steps.py``). The count of matches that mine40 made a read when bound to a
name (``total = (target != ignore).sum(); if total > 0``) was left when compared inline or
tested bare. kraken 7.1.1's reading-order validation writes each device score into a host
matrix by a counter (``order[i, j] = yhat[idx]; idx += 1``): a blocking copy per pair.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

import pytest
from lint_runs import lint, package_records

from h2dlint.analysis.first_steps import first_step_lines

VALIDATOR = """
    from pkg.plots import plot

    class Validator:
        def __call__(self, model, loader):
            for {target} in {iterable}:
                preds = model(batch)
                if {guard}:
                    plot(preds)
"""
PLOTS = """
    import torch

    def plot(preds: torch.Tensor):
        return preds.max().item()
"""


def _rows(records: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r["code"]) for r in records
    )


def _validator(target: str, iterable: str, guard: str) -> str:
    return textwrap.dedent(VALIDATOR.format(target=target, iterable=iterable, guard=guard))


@pytest.mark.parametrize(
    "guard", ["batch_i < 3", "self.plots and batch_i < 3", "batch_i == 0", "2 >= batch_i"]
)
def test_a_call_for_the_first_batches_only_is_no_per_step_call(tmp_path: Path, guard: str) -> None:
    files = {
        "val.py": _validator("batch_i, batch", "enumerate(loader)", guard),
        "plots.py": textwrap.dedent(PLOTS),
    }
    assert _rows(package_records(tmp_path, files, "HTD202")) == []


@pytest.mark.parametrize(
    ("target", "iterable", "guard"),
    [
        ("batch_i, batch", "enumerate(loader)", "batch_i > 3"),  # every batch after the third
        ("batch_i, batch", "enumerate(loader)", "batch_i < 100"),  # not a few
        ("batch_i, batch", "enumerate(loader)", "batch_i < warmup"),  # a name: maybe most
        ("batch_i, batch", "enumerate(loader)", "batch_i != 0"),
        ("batch_i, batch", "enumerate(loader, 1)", "batch_i < 3"),  # not counted from 0
        ("i, batch", "enumerate(self.layers)", "i == 0"),  # a model's parts, within one step
        ("batch_i, batch", "enumerate(loader)", "batch_i < 3 or self.always"),
    ],
)
def test_other_guards_keep_the_call_per_step(
    tmp_path: Path, target: str, iterable: str, guard: str
) -> None:
    files = {"val.py": _validator(target, iterable, guard), "plots.py": textwrap.dedent(PLOTS)}
    assert _rows(package_records(tmp_path, files, "HTD202")) == [("plots.py", 5, "HTD202")]


def test_the_first_steps_are_read_from_loops_that_run_a_model() -> None:
    code = textwrap.dedent(
        """
        def run(model, loader, rows):
            for i, batch in enumerate(loader):
                out = model(batch)
                if i < 3:
                    show(out)
            for i, row in enumerate(rows):
                if i < 3:
                    show(row)
        """
    )
    tree = ast.parse(code)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    nodes = list(ast.walk(function))
    assert first_step_lines(nodes) == [[6, 6]]  # not the loop that runs no model


def test_a_count_of_matches_is_read_alike_however_it_is_spelled() -> None:
    code = """
        import torch
        class Loss(torch.nn.Module):
            def forward(self, target, logits, ignore):
                total = (target != ignore).sum()
                if total > 0:
                    logits = logits * 2
                if (target != ignore).sum() > 0:
                    logits = logits * 3
                if total:
                    logits = logits * 4
                if torch.sum(target != ignore) > 0:
                    logits = logits * 5
                return logits
    """
    assert sorted(f.start.row for f in lint(code, "HTD202")) == [6, 8, 10, 12]


def test_a_count_of_a_numpy_arrays_matches_is_left_however_it_is_spelled() -> None:
    code = """
        import numpy as np
        import torch
        class Loss(torch.nn.Module):
            def forward(self, target, logits, ignore, ids: np.ndarray):
                arr = np.asarray(target)
                total = (arr != ignore).sum()
                if total > 0:
                    logits = logits * 2
                if (arr != ignore).sum() > 0:
                    logits = logits * 3
                if total:
                    logits = logits * 4
                if (ids != ignore).sum() > 0:
                    logits = logits * 5
                n = len(target)
                if n:
                    logits = logits * 6
                return logits
    """
    assert lint(code, "HTD202") == []


ROWS = """
    import numpy as np
    import torch
    def pairs(logits, n: int):
        yhat = torch.sigmoid(logits.cuda())
        order = {order}
        idx = 0
        for i in range(n):
            for j in range(n):
                order[i, j] = yhat[idx]
                idx += 1
        return order
"""


@pytest.mark.parametrize("order", ["torch.zeros((n, n))", "np.zeros((n, n))"])
def test_a_device_row_written_into_a_host_tensor_is_read_per_row(order: str) -> None:
    found = lint(ROWS.format(order=order), "HTD201")
    assert [f.start.row for f in found] == [10]


@pytest.mark.parametrize(
    "order", ["torch.zeros((n, n), device='cuda')", "[[None] * n for _ in range(n)]", "{}"]
)
def test_a_device_row_written_into_a_device_tensor_or_a_container_is_not(order: str) -> None:
    assert lint(ROWS.format(order=order), "HTD201") == []

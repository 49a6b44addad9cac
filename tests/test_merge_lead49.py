"""Session 49 (lead): what the merged branches together got wrong, each with its twin.

- a parameter's tensor-only use under a type test (``if isinstance(batch, torch.Tensor):
  batch.detach()``) says nothing of the values the test keeps out: monai's generic
  ``decollate_batch`` reads ``batch.item()`` above it for numpy scalars too (recall49's
  "a parameter used as a tensor", ``analysis/same_value_uses.py``; labelled clean since
  session 42);
- a comparison of a whole numpy array with a name bound to a tensor parameter stays a
  tensor's (triage49b's numpy masks, ``analysis/numpy_comparisons.py``; session 33's test)."""

from __future__ import annotations

from lint_runs import lint

GENERIC = """
    import torch
    class Model(torch.nn.Module):
        def forward(self, batch, detach: bool = True):
            if getattr(batch, "ndim", -1) == 0 and hasattr(batch, "item"):
                return batch.item() if detach else batch
            if {guard}:
                batch = batch.detach()
            return batch
"""


def test_a_use_under_a_type_test_proves_no_tensor_above_it() -> None:
    assert lint(GENERIC.format(guard="isinstance(batch, torch.Tensor)"), "HTD202") == []
    assert lint(GENERIC.format(guard="detach and torch.is_tensor(batch)"), "HTD202") == []


def test_an_unguarded_use_still_proves_the_parameter() -> None:
    rows = [f.start.row for f in lint(GENERIC.format(guard="detach"), "HTD202")]
    assert rows == [6]

"""Evaluation hooks: the per-batch steps of a validation or test pass (HTD202).

Lightning's ``validation_step`` and ``test_step`` (and the same names elsewhere) run once per
batch of an evaluation pass, which computes metrics: the outputs they copy to the host
(``y_pred.cpu().numpy()`` for PESQ, a plot, a scikit-learn score; ``preds.cpu()`` kept for the
epoch's end) are what the metric reads, and no training step is queued behind the copy. Such a
copy is the pass's purpose, not a stall of the training loop. Implicit reads (a tensor as an
``if`` test, a size, a slice bound) and ``.item()`` stay reported: they stall the pass without
being its output.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

# The per-batch hooks of an evaluation pass, by name.
EVALUATION_HOOKS = frozenset({"validation_step", "test_step"})


def in_evaluation_hook(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the code below ``ancestors`` (root first) is in an evaluation hook, or in a
    function nested in one."""
    return any(
        isinstance(node, cst.FunctionDef) and node.name.value in EVALUATION_HOOKS
        for node in ancestors
    )

"""Lists of tensors that ``torch._foreach_<op>`` functions return.

``torch._foreach_norm(params)``, ``torch._foreach_sqrt(exp_avg_sqs)``,
``torch._foreach_add(xs, ys)``: one tensor per input tensor, each on its input's device. An
in-place form (``torch._foreach_add_``, the trailing underscore) returns nothing. Optimizers
iterate such lists per parameter (pytorch-optimizer 3.10's LAMB tested and read
``wn / (pn + eps)`` of ``zip(params, weight_norms, p_norms)`` per parameter): each item is a
tensor, though the list is none.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.provenance import Provenance


def foreach_result(provenance: Provenance, node: cst.BaseExpression | None) -> bool:
    """Whether ``node`` is the list a ``torch._foreach_<op>(...)`` call returns (also wrapped in
    ``list(...)`` or ``tuple(...)``)."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Name) and func.value in ("list", "tuple") and len(node.args) == 1:
        return foreach_result(provenance, node.args[0].value)
    qualified = provenance.qualify(func) or ""
    return qualified.startswith("torch._foreach_") and not qualified.endswith("_")

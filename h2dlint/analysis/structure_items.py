"""Names a ``for`` loop binds to the items of a plain structure item: ``for bl in
gt[cls_idx]`` of ``gt = batch["baselines"][0]`` (kraken's validation step), a subscript chain
of a name with no call in it. What the structure holds is not known from the chain: a moved
batch's entry may be a tensor or any of its Python containers (a dict of polylines per class).
``torch.tensor(bl)`` of such an item reads as what ``torch.tensor`` is for, Python data (PyTorch
warns when it is handed a tensor and asks for ``clone().detach()`` instead), not as a copy of a
device row."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.bindings import Bindings


def looped_structure_item(bindings: Bindings, node: cst.BaseExpression) -> bool:
    """Whether every binding of the name ``node`` that reaches it is the target of a ``for``
    loop over a plain structure item (a subscript of a name or of a name bound to one, no
    call)."""
    if not isinstance(node, cst.Name):
        return False
    reaching = bindings.reaching_bindings(node)
    return bool(reaching) and all(
        isinstance(b.statement, cst.For)
        and isinstance(b.statement.target, cst.Name)
        and b.statement.target.value == node.value
        and _plain_item(bindings, b.statement.iter)
        for b in reaching
    )


def _plain_item(bindings: Bindings, node: cst.BaseExpression) -> bool:
    """``gt[cls_idx]``, ``batch["lines"][0]``: a subscript chain down to a name that is a
    parameter or bound to such a chain (``gt = batch["baselines"][0]``)."""
    if not isinstance(node, cst.Subscript):
        return False
    value: cst.BaseExpression = node
    for _ in range(3):
        while isinstance(value, cst.Subscript):
            value = value.value
        if not isinstance(value, cst.Name):
            return False
        if bindings.is_parameter(value):
            return True
        values = bindings.reaching(value)
        if len(values) != 1 or not isinstance(values[0], cst.Subscript):
            return False
        value = values[0]
    return False

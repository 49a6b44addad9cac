"""Arguments that PyTorch takes as a Python number (a ``Scalar``): ``alpha=`` of ``add``/``sub``
and ``value=`` of ``addcmul``/``addcdiv``. Given a tensor there, PyTorch reads it with
``.item()`` before the kernel is queued, so a device tensor syncs the host (adv-optm 1.2's
OrthoGrad ``g.sub(w, alpha=proj)`` per parameter, fixed in 1.2.13 as ``g.sub(w * proj)``).
HTD202 (a sync on a hot path) asks this; whether the value is a tensor is its usual question.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import keyword

# The tensor methods (and ``torch.<name>`` functions) with a ``Scalar`` keyword, by keyword.
SCALAR_KEYWORDS = {
    "alpha": frozenset({"add", "add_", "sub", "sub_", "subtract", "rsub"}),
    "value": frozenset({"addcmul", "addcmul_", "addcdiv", "addcdiv_"}),
}


def scalar_argument(
    call: cst.Call, qualified: str, method: str | None
) -> tuple[str, cst.BaseExpression] | None:
    """The keyword (``alpha``/``value``) and value of ``call``'s ``Scalar`` argument (a tensor
    method, or the ``torch`` function of the same name) when the value is not a number written
    in the code; else None."""
    if method is not None:
        name = method
    elif qualified.startswith("torch.") and qualified.count(".") == 1:
        name = qualified[len("torch.") :]
    else:
        return None
    for word, names in SCALAR_KEYWORDS.items():
        if name not in names:
            continue
        arg = keyword(call, word)
        if arg is None or _number(arg.value):
            return None
        return word, arg.value
    return None


def _number(node: cst.BaseExpression) -> bool:
    """``1``, ``-0.5``, ``2 * 3``: a number the code writes."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _number(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _number(node.left) and _number(node.right)
    return False

"""Type-generic converters: a function that turns its argument into host data, whatever it is
given (``if isinstance(data, torch.Tensor): data = data.detach().cpu().numpy()`` beside arms for
arrays, lists and numbers: MONAI's ``convert_to_numpy``, ``ensure_tuple_rep``). The copy to the
host is what the caller asked for, and where the tensor was is the caller's choice; HTD202 asks
:func:`converts_input` before reporting such a copy of a tensor of unknown placement.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def converts_input(ancestors: Sequence[cst.CSTNode], tensor: cst.BaseExpression) -> bool:
    """Whether the copy of ``tensor`` (below ``ancestors``, innermost last) lies in the arm of
    ``if isinstance(p, torch.Tensor):`` of a parameter ``p`` of its function, and the statement
    around it rebinds ``p`` (``p = p.cpu().numpy()``, ``p = np.asarray(p.cpu().numpy())``) or
    returns: the function normalises its argument's type. The caller checks that ``tensor`` is
    ``p`` itself (no value computed from it)."""
    root = _root(tensor)
    if root is None:
        return False
    statement: cst.BaseSmallStatement | None = None
    tested = False
    for parent in reversed(ancestors):
        if statement is None and isinstance(parent, cst.BaseSmallStatement):
            statement = parent
        if isinstance(parent, cst.If) and _tensor_test(parent.test, root):
            tested = True
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            if not isinstance(parent, cst.FunctionDef) or not tested:
                return False
            params = parent.params
            names = {p.name.value for p in (*params.posonly_params, *params.params)}
            if root not in names:
                return False
            break
    else:
        return False
    if isinstance(statement, cst.Return):
        return True
    return (
        isinstance(statement, cst.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0].target, cst.Name)
        and statement.targets[0].target.value == root
    )


def _root(node: cst.BaseExpression) -> str | None:
    """``p`` of ``p``, ``p.detach()``, ``p.detach().float()``."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        node = node.func.value
    return node.value if isinstance(node, cst.Name) else None


def _tensor_test(test: cst.BaseExpression, name: str) -> bool:
    """``isinstance(name, torch.Tensor)``, ``isinstance(name, (MetaTensor, torch.Tensor))``."""
    if not (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Name)
        and test.func.value == "isinstance"
        and len(test.args) == 2
    ):
        return False
    subject, kinds = test.args[0].value, test.args[1].value
    if not (isinstance(subject, cst.Name) and subject.value == name):
        return False
    options = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    return any(
        (isinstance(o, cst.Name) and o.value.endswith("Tensor"))
        or (isinstance(o, cst.Attribute) and o.attr.value == "Tensor")
        for o in options
    )

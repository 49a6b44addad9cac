"""A tokenizer's or processor's batch (``BatchEncoding``), host data until moved (HTD202 and
every rule that asks provenance).

A call with ``return_tensors="pt"`` and no ``device=`` returns host tensors (provenance's
``calls``); so does one that passes on the function's own format parameter
(``return_tensors=return_tensors`` of ``return_tensors: str = "pt"``): every format a
tokenizer returns (``"pt"``, ``"np"``, lists) is host data. Its fields (``enc.input_ids``) are
host tensors too, unless the function moves the batch in place (``enc.to(dev)`` moves the
tensors of a ``BatchEncoding`` and returns it) or sets that field (``enc.input_ids =
ids.to(dev)``): :func:`moved_in_place`, :func:`field_set`.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.names import calls_in
from h2dlint.walk import ReadOnlyVisitor, visit_read_only


def format_passed_on(call: cst.Call, function: cst.CSTNode) -> cst.Name | None:
    """The name passed as ``return_tensors=`` when it is a parameter of ``function`` whose
    default is a string (the caller checks that no other binding reaches the call); None with
    a ``device`` or a ``**`` argument, which may carry one (a fast image processor's
    ``device=``)."""
    if any(a.star == "**" for a in call.args):
        return None
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    value = keywords.get("return_tensors")
    if "device" in keywords or not isinstance(value, cst.Name):
        return None
    if not isinstance(function, cst.FunctionDef):
        return None
    params = function.params
    defaults = (
        p.default for p in (*params.params, *params.kwonly_params) if p.name.value == value.value
    )
    return value if any(isinstance(d, cst.SimpleString) for d in defaults) else None


def moved_in_place(function: cst.CSTNode, name: str) -> bool:
    """Whether ``function`` calls ``name.to(...)`` or ``name.cuda(...)``, whatever is done
    with the result (a ``BatchEncoding`` or a module is moved in place)."""
    return any(
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value in ("to", "cuda")
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == name
        for call in calls_in(function)
    )


def field_set(function: cst.CSTNode, name: str, attr: str) -> bool:
    """Whether ``function`` assigns ``name.attr`` anywhere (``enc.input_ids = ...``)."""
    targets = _Targets()
    visit_read_only(function, targets)
    return any(
        isinstance(target, cst.Attribute)
        and target.attr.value == attr
        and isinstance(target.value, cst.Name)
        and target.value.value == name
        for target in targets.found
    )


class _Targets(ReadOnlyVisitor):
    """The targets of every assignment under a node."""

    def __init__(self) -> None:
        self.found: list[cst.BaseExpression] = []

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.found.append(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found.append(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.found.append(node.target)

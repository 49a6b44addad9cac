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

from collections.abc import Sequence

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


def field_set(
    function: cst.CSTNode,
    name: str,
    attr: str,
    read: cst.CSTNode | None = None,
    bound: Sequence[cst.CSTNode] = (),
) -> bool:
    """Whether ``function`` assigns ``name.attr`` (``enc.input_ids = ...``) where it may run
    between a binding of ``name`` in ``bound`` and the ``read`` of the field: anywhere, unless
    the set comes after the read and every binding before it, with every loop around the set
    around the bindings too (``ids = enc.input_ids`` ... ``enc.input_ids = new.to(dev)``, with
    ``enc`` made anew each pass: the set changes a batch the read is done with)."""
    targets = _Targets()
    visit_read_only(function, targets)
    sets = [
        (target, targets.loops[i])
        for i, target in enumerate(targets.found)
        if isinstance(target, cst.Attribute)
        and target.attr.value == attr
        and isinstance(target.value, cst.Name)
        and target.value.value == name
    ]
    if not sets or read is None or not bound:
        return bool(sets)
    order = targets.order
    if read not in order or any(b not in order or order[b] > order[read] for b in bound):
        return True
    return any(
        order[target] < order[read]
        or any(not all(targets.inside(loop, b) for b in bound) for loop in loops)
        for target, loops in sets
    )


class _Targets(ReadOnlyVisitor):
    """The targets of every assignment under a node."""

    def __init__(self) -> None:
        self.found: list[cst.BaseExpression] = []
        self.loops: list[tuple[cst.CSTNode, ...]] = []  # the loops around each target
        self.order: dict[cst.CSTNode, int] = {}  # every node by the walk's (source) order
        self.ends: dict[cst.CSTNode, int] = {}  # where each loop's nodes end in ``order``
        self._open: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.order[node] = len(self.order)
        if isinstance(node, (cst.For, cst.While)):
            self._open.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self._open and self._open[-1] is original_node:
            self._open.pop()
            self.ends[original_node] = len(self.order) - 1
        super().on_leave(original_node)

    def inside(self, loop: cst.CSTNode, node: cst.CSTNode) -> bool:
        """Whether ``node`` lies in ``loop``."""
        return self.order[loop] < self.order[node] <= self.ends[loop]

    def _add(self, target: cst.BaseExpression) -> None:
        self.found.append(target)
        self.loops.append(tuple(self._open))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._add(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(node.target)

"""Displays of Python numbers: ``[0.299, 0.587, 0.114]``, ``[[1, 0], [0, w - 1]]``.

``torch.tensor(display, device=d)`` builds such a literal in pageable host memory and copies it
to the device with a blocking copy, as ``torch.tensor(0.0, device=d)`` does for one number
(HTD107): kornia 0.8's grayscale weights, rotation centres and flip matrices, per call. Every
element must be a number :func:`h2dlint.analysis.host_data.host_scalar` proves (a literal, a
size, arithmetic of those); nested lists and tuples count, up to :data:`MAX_NUMBERS` numbers
(a table longer than that is data, not a constant). Not in an arm taken when a name of the
display is no Python number: the ``else`` of ``isinstance(w, int)`` (kornia 0.9 keeps the literal
there for ``torch.jit.trace``, which passes sizes as 0-d tensors), or the body of
``isinstance(w, torch.Tensor)``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import host_scalar
from h2dlint.analysis.provenance import Provenance
from h2dlint.walk import visit_read_only

MAX_NUMBERS = 64
MAX_DEPTH = 3


def number_display(
    provenance: Provenance,
    node: cst.BaseExpression,
    frame: Frame,
    ancestors: Sequence[cst.CSTNode] = (),
) -> int | None:
    """How many numbers the list or tuple display ``node`` holds (two or more), when every
    element is a proven Python number or such a display; None otherwise, and in an arm taken
    when one of its names is not a number (see the module's docs). ``ancestors`` are those of
    ``node``'s call, the call last."""
    count = _count(provenance, node, frame, 0)
    if count is None or count < 2:
        return None
    names = {n.value for n in _names(node)}
    return None if names and _not_number_arm((*ancestors, node), names) else count


_NUMBER_TYPES = frozenset({"int", "float", "bool", "SymInt", "SymFloat"})


class _NameNodes(cst.CSTVisitor):
    """The ``Name`` nodes under a node, in order."""

    def __init__(self) -> None:
        self.found: list[cst.Name] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.found.append(node)


def _names(node: cst.CSTNode) -> list[cst.Name]:
    collector = _NameNodes()
    visit_read_only(node, collector)
    return collector.found


def _isinstance_test(test: cst.BaseExpression, names: set[str]) -> bool | None:
    """True for ``isinstance(n, int)`` (numbers), False for ``isinstance(n, torch.Tensor)``,
    of a name ``n`` of ``names``, ``not`` flipping it; None for any other test."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _isinstance_test(test.expression, names)
        return None if inner is None else not inner
    if not (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Name)
        and test.func.value == "isinstance"
        and len(test.args) == 2
        and isinstance(test.args[0].value, cst.Name)
        and test.args[0].value.value in names
    ):
        return None
    kinds = test.args[1].value
    elements = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    last = [
        e.attr.value if isinstance(e, cst.Attribute) else e.value if isinstance(e, cst.Name) else ""
        for e in elements
    ]
    if all(k in _NUMBER_TYPES for k in last):
        return True
    if all(k == "Tensor" for k in last):
        return False
    return None


def _not_number_arm(chain: Sequence[cst.CSTNode], names: set[str]) -> bool:
    """Whether the last node of ``chain`` (its ancestors, then itself) is in an arm where a
    name of ``names`` is known not to be a Python number."""
    for parent, child in itertools.pairwise(chain):
        if isinstance(parent, (cst.If, cst.IfExp)):
            numbers = _isinstance_test(parent.test, names)
            if numbers is None:
                continue
            if (numbers and child is parent.orelse) or (numbers is False and child is parent.body):
                return True
    return False


def _count(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int
) -> int | None:
    if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements or depth >= MAX_DEPTH:
        return None
    total = 0
    for element in node.elements:
        if isinstance(element, cst.StarredElement):
            return None
        value = element.value
        if isinstance(value, (cst.List, cst.Tuple)):
            inner = _count(provenance, value, frame, depth + 1)
            if inner is None:
                return None
            total += inner
        elif host_scalar(provenance, value, frame):
            total += 1
        else:
            return None
        if total > MAX_NUMBERS:
            return None
    return total

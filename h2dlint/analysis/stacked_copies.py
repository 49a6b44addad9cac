"""Copies that a comprehension makes once per element only for a join to glue them together.

``torch.stack([torch.as_tensor(shape, device=d) for _ in range(n)])`` copies the same host data
to the device ``n`` times: the comprehension's elements are never kept, ``torch.stack`` (or
``cat``) copies them into one new tensor at once, so one copy expanded or repeated gives the
same result (kornia 0.8's mosaic parameters). A comprehension whose elements are kept (a list
returned or stored) needs a tensor per element, and a copy that reads the comprehension's own
variables copies other data each time (HTD101's per-item transfer): neither is one of these.
The data must be host data (the provenance analysis) or a parameter annotated as a tuple of
numbers (``batch_shape: tuple[int, ...]``), or a slice or item of one: a shape is few bytes,
but here it is copied once per element.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import first_positional
from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.analysis.provenance import Provenance
from h2dlint.imports import dotted_name

JOINS = frozenset(
    f"torch.{name}"
    for name in ("stack", "cat", "concat", "concatenate", "vstack", "hstack", "row_stack")
)


def joined_comprehension(
    provenance: Provenance, ancestors: Sequence[cst.CSTNode], node: cst.Call
) -> tuple[cst.ListComp | cst.GeneratorExp, str] | None:
    """The comprehension whose element is ``node`` when the comprehension is the tensors
    argument of a join (``torch.stack``, ``torch.cat``...), with the join's short name."""
    if len(ancestors) < 3:
        return None
    comprehension = ancestors[-1]
    if not isinstance(comprehension, (cst.ListComp, cst.GeneratorExp)):
        return None
    if comprehension.elt is not node:
        return None
    arg, join = ancestors[-2], ancestors[-3]
    if not isinstance(arg, cst.Arg) or not isinstance(join, cst.Call):
        return None
    if first_positional(join) is not comprehension:
        return None
    qualified = provenance.qualify(join.func)
    if qualified not in JOINS:
        return None
    return comprehension, qualified.rsplit(".", 1)[1]


def comprehension_names(comprehension: cst.ListComp | cst.GeneratorExp) -> set[str]:
    """The names every ``for`` of the comprehension binds (its targets, nested ones too)."""
    names: set[str] = set()
    clause: cst.CompFor | None = comprehension.for_in
    while clause is not None:
        _collect(clause.target, names)
        clause = clause.inner_for_in
    return names


def _collect(target: cst.BaseExpression, names: set[str]) -> None:
    if isinstance(target, cst.Name):
        names.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _collect(element.value, names)
    elif isinstance(target, cst.StarredElement):
        _collect(target.value, names)


_NUMBERS = frozenset({"int", "float", "bool"})


def number_tuple(provenance: Provenance, data: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``data`` is a parameter annotated ``tuple[int, ...]`` (``Tuple[int, int]``,
    numbers only), or a slice or item of one."""
    while isinstance(data, cst.Subscript):
        data = data.value
    if not isinstance(data, cst.Name):
        return False
    annotation = parameter_annotation(data, frame)
    if not isinstance(annotation, cst.Subscript):
        return False
    head = (provenance.qualify(annotation.value) or dotted_name(annotation.value) or "").rsplit(
        ".", 1
    )[-1]
    if head not in ("tuple", "Tuple"):
        return False
    items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
    if not items or len(items) != len(annotation.slice):
        return False
    if len(items) == 2 and isinstance(items[1], cst.Ellipsis):
        items = items[:1]
    return all(isinstance(item, cst.Name) and item.value in _NUMBERS for item in items)

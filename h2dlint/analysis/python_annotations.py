"""Parameters whose annotation says they hold Python data: ``list[list[int]]``,
``Sequence[float]``, ``tuple[int, ...]``, ``int | None``. A tensor made from one
(``torch.as_tensor(vids, dtype=torch.long)``) is made on the host, as from a list display;
the provenance's host-data question (``is_host_data``) takes them as it takes a numpy
annotation (a caller that passes a tensor for ``list[int]`` contradicts its callee's
signature)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.imports import dotted_name

_SCALARS = frozenset({"int", "float", "bool", "complex"})
_SEQUENCES = frozenset({"list", "List", "tuple", "Tuple", "Sequence", "MutableSequence"})
_OPTIONAL = frozenset({"Optional"})


def python_data_annotated(name: cst.Name, frame: Frame) -> bool:
    """Whether the parameter ``name``'s annotation says Python numbers or sequences of them."""
    annotation = parameter_annotation(name, frame)
    return annotation is not None and python_data(annotation)


def python_data(annotation: cst.BaseExpression, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(annotation, cst.SimpleString):
        return False
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        sides = (annotation.left, annotation.right)
        return all(_none(s) or python_data(s, depth + 1) for s in sides) and not all(
            _none(s) for s in sides
        )
    if isinstance(annotation, cst.Subscript):
        head = (dotted_name(annotation.value) or "").rsplit(".", 1)[-1]
        items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if head in _OPTIONAL:
            return len(items) == 1 and python_data(items[0], depth + 1)
        if head not in _SEQUENCES or not items:
            return False
        return all(
            (isinstance(item, cst.Ellipsis)) or python_data(item, depth + 1) for item in items
        )
    name = (dotted_name(annotation) or "").rsplit(".", 1)[-1]
    return name in _SCALARS


def _none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"

"""What a parameter's annotation says about its value and its items: one tensor
(``x: torch.Tensor``), or a tuple whose items the annotation names one by one
(``seq_info: Tuple[torch.Tensor, torch.Tensor, int]``, ``kv: tuple[Tensor, ...]``). An item taken
by a constant index (``seq_info[0]``) or unpacked (``lengths, cu, n = seq_info``) is what its
position says: a tensor where it says ``torch.Tensor`` (where it is stays unknown). Split out of
:mod:`h2dlint.analysis.tensor_kinds`, which asks these questions."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.analysis.provenance import Provenance, annotation_is
from h2dlint.analysis.torch_aliases import torch_name


def tensor_type(provenance: Provenance, node: cst.BaseExpression) -> bool:
    # ``from kornia.core import Tensor`` (``Tensor = torch.Tensor`` there) is torch's.
    qualified = torch_name(provenance, node, lambda name: name.endswith("Tensor")) or ""
    return qualified.startswith("torch.") and qualified.endswith("Tensor")


def tensor_annotation(provenance: Provenance, annotation: cst.BaseExpression) -> bool:
    """Whether an annotation says: a torch tensor (``torch.Tensor``, ``torch.LongTensor``,
    ``Tensor``), optionally or-None (``Optional[...]``, ``... | None``). A container of
    tensors, or a union with anything else, is not one tensor."""
    return annotation_is(provenance, annotation, lambda node: tensor_type(provenance, node))


def unchanged_parameter_annotation(
    provenance: Provenance, name: cst.Name, frame: Frame
) -> cst.BaseExpression | None:
    """The annotation of the parameter ``name`` when the parameter's value is the one that
    reaches ``name`` (any other binding of it is a known value, not a parameter)."""
    if not isinstance(frame.function, cst.FunctionDef):
        return None
    bindings = provenance.bindings(frame)
    if not bindings.is_parameter(name) or bindings.of(name.value).count(None) != 1:
        return None
    return parameter_annotation(name, frame)


def tensor_item(provenance: Provenance, node: cst.Subscript, frame: Frame) -> bool:
    """Whether ``node`` is ``param[i]`` of a parameter annotated as a tuple whose item ``i``
    (a constant) is annotated as a tensor."""
    if not isinstance(node.value, cst.Name) or len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    position = _constant(index.value) if isinstance(index, cst.Index) else None
    if position is None:
        return False
    items = _tuple_items(provenance, unchanged_parameter_annotation(provenance, node.value, frame))
    return _item_is_tensor(provenance, items, position)


def unpacked_tensor_item(
    provenance: Provenance, small: cst.Assign, name: str, frame: Frame
) -> bool:
    """Whether ``small`` unpacks a parameter annotated as a tuple (``a, b, n = param``) and
    the item that lands in ``name`` is annotated as a tensor."""
    if not isinstance(small.value, cst.Name) or len(small.targets) != 1:
        return False
    target = small.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return False
    names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
    if name not in names or any(isinstance(e, cst.StarredElement) for e in target.elements):
        return False
    items = _tuple_items(provenance, unchanged_parameter_annotation(provenance, small.value, frame))
    if items is not None and len(items) != len(names) and not _open(items):
        return False  # the annotation does not match the unpacking: trust neither
    return _item_is_tensor(provenance, items, names.index(name))


def _tuple_items(
    provenance: Provenance, annotation: cst.BaseExpression | None
) -> list[cst.BaseExpression] | None:
    """The item annotations of ``Tuple[A, B]`` / ``tuple[A, ...]``, also or-None
    (``Optional[Tuple[A, B]]``, ``tuple[A, B] | None``); None for anything else."""
    annotation = _without_none(provenance, annotation)
    if not isinstance(annotation, cst.Subscript):
        return None
    base = annotation.value
    head = provenance.qualify(base) or (base.value if isinstance(base, cst.Name) else "")
    if head.rsplit(".", 1)[-1] not in ("Tuple", "tuple"):
        return None
    items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
    return items if len(items) == len(annotation.slice) else None


def _without_none(
    provenance: Provenance, annotation: cst.BaseExpression | None
) -> cst.BaseExpression | None:
    """``X`` of ``Optional[X]`` or ``X | None``; else the annotation itself."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        parts = [annotation.left, annotation.right]
        kept = [p for p in parts if not (isinstance(p, cst.Name) and p.value == "None")]
        return kept[0] if len(kept) == 1 else annotation
    if isinstance(annotation, cst.Subscript) and len(annotation.slice) == 1:
        head = provenance.qualify(annotation.value) or ""
        index = annotation.slice[0].slice
        if head.rsplit(".", 1)[-1] == "Optional" and isinstance(index, cst.Index):
            return index.value
    return annotation


def _open(items: Sequence[cst.BaseExpression]) -> bool:
    """``tuple[A, ...]``: any number of ``A``."""
    return len(items) == 2 and isinstance(items[1], cst.Ellipsis)


def _item_is_tensor(
    provenance: Provenance, items: Sequence[cst.BaseExpression] | None, position: int
) -> bool:
    if not items:
        return False
    if _open(items):
        return tensor_annotation(provenance, items[0])
    if not -len(items) <= position < len(items):
        return False
    return tensor_annotation(provenance, items[position])


def _constant(node: cst.BaseExpression) -> int | None:
    """``0``, ``2``, ``-1``: a constant index."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.evaluated_value)
    return None

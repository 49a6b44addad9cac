"""A list attribute whose class declares it a list of records the module defines, each with its
own ``to`` method (session 48, triage48: OpenPipe ART 0.5.23's
``TensorizedMultiHistoryTrajectory``, ``art/trajectories/tensors.py:311``)::

    class TensorizedHistory(pydantic.BaseModel):
        tokens: torch.Tensor
        def to(self, device): ...               # moves its own fields

    class TensorizedMultiHistoryTrajectory(pydantic.BaseModel):
        histories: list[TensorizedHistory]
        def to(self, device):
            return self.model_copy(update={"histories": [h.to(device) for h in self.histories]})

The items are records, not tensors: ``h.to(device)`` is the record's own method (which moves
its fields, each found there on its own), and stacking "the items" into one pinned buffer is no
fix for them. Only a class-body annotation of the attribute read through ``self`` counts
(``list[C]``, ``List[C]``, ``Sequence[C]``, ``tuple[C, ...]``), with ``C`` a class of the same
module that defines ``to`` and is no ``Tensor`` subclass; a list annotated with tensors
(``list[torch.Tensor]``), or with a class the module does not define, is left as it was.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.container_items import field_annotation
from h2dlint.analysis.frames import Frame

_EMPTY = cst.Module([])
_SEQUENCES = frozenset({"list", "List", "Sequence", "tuple", "Tuple", "typing.List"})


def record_list_attribute(iterable: cst.BaseExpression, frame: Frame, module: cst.Module) -> bool:
    """Whether ``iterable`` is ``self.<attr>`` of a method whose class annotates ``<attr>`` as a
    sequence of a record class ``module`` defines with its own ``to`` method."""
    if frame.cls is None or frame.self_name is None:
        return False
    if not (
        isinstance(iterable, cst.Attribute)
        and isinstance(iterable.value, cst.Name)
        and iterable.value.value == frame.self_name
    ):
        return False
    element = _element_class(field_annotation(frame.cls, iterable.attr.value))
    if element is None:
        return False
    record = next(
        (
            s
            for s in module.body
            if isinstance(s, cst.ClassDef) and s.name.value == element and s is not frame.cls
        ),
        None,
    )
    return record is not None and _moves_itself(record)


def _element_class(annotation: cst.BaseExpression | None) -> str | None:
    """``C`` of ``list[C]``, ``Sequence[C]``, ``tuple[C, ...]``; None for any other."""
    if not isinstance(annotation, cst.Subscript):
        return None
    outer = _EMPTY.code_for_node(annotation.value).rsplit(".", 1)[-1]
    if outer not in _SEQUENCES or not annotation.slice:
        return None
    first = annotation.slice[0].slice
    if not isinstance(first, cst.Index) or not isinstance(first.value, cst.Name):
        return None
    if outer in ("tuple", "Tuple") and len(annotation.slice) != 2:
        return None
    return first.value.value


def _moves_itself(record: cst.ClassDef) -> bool:
    """Whether ``record`` defines ``to`` and derives from no ``Tensor``."""
    if any(_EMPTY.code_for_node(b.value).rsplit(".", 1)[-1] == "Tensor" for b in record.bases):
        return False
    return any(isinstance(s, cst.FunctionDef) and s.name.value == "to" for s in record.body.body)

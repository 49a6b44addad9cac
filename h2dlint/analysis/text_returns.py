"""A ``decode`` annotated to return text (``-> str``, ``-> list[str]``, ``-> List[str]``)
turns ids into a string on the host: the values must reach it, whatever the code does, so its
name does not make it a per-step function (session 48, triage48b: opacus 1.6.0's char-level
``CharByteEncoder.decode(self, char_ids_tensor) -> str`` in
``examples/char-lstm-classification.py:179``, an ``nn.Module`` the training code never calls
per step). A ``decode`` returning tensors, or not annotated, keeps the name's reason."""

from __future__ import annotations

import libcst as cst

_TEXT = "str"
_LISTS = frozenset({"list", "List", "Sequence", "tuple", "Tuple"})


def returns_text(function: cst.FunctionDef) -> bool:
    """Whether ``function``'s return annotation is ``str`` or a list of ``str``."""
    if function.returns is None:
        return False
    annotation = function.returns.annotation
    if isinstance(annotation, cst.Name):
        return annotation.value == _TEXT
    if not (isinstance(annotation, cst.Subscript) and isinstance(annotation.value, cst.Name)):
        return False
    if annotation.value.value not in _LISTS:
        return False
    items = [s.slice for s in annotation.slice]
    return all(
        isinstance(item, cst.Index)
        and isinstance(item.value, cst.Name)
        and item.value.value in (_TEXT, "...")
        for item in items
    ) and any(isinstance(i, cst.Index) and getattr(i.value, "value", "") == _TEXT for i in items)

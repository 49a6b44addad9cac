"""A ``decode`` annotated to return text (``-> str``, ``-> list[str]``, ``-> List[str]``)
turns ids into a string on the host: the values must reach it, whatever the code does, so its
name does not make it a per-step function (session 48, triage48b: opacus 1.6.0's char-level
``CharByteEncoder.decode(self, char_ids_tensor) -> str`` in
``examples/char-lstm-classification.py:179``, an ``nn.Module`` the training code never calls
per step). A ``decode`` returning tensors, or not annotated, keeps the name's reason.

A ``forward`` or ``__call__`` annotated so is the same: session 50 (triage50b), torchani 2.9.0's
``_NumbersConvert.forward(self, species: Tensor) -> list[str]`` (``utils.py:312``) turns atomic
numbers into chemical symbols, host text by purpose, once per call for its output; a module
returning tensors keeps ``forward``'s reason."""

from __future__ import annotations

import libcst as cst

_TEXT = "str"
# Entry points whose name alone makes them hot, unless annotated to return text.
TEXT_ENTRY_POINTS = frozenset({"decode", "forward", "__call__"})
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

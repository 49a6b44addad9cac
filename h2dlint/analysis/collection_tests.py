"""An ``if`` test of a collection the function builds (``if pending:`` after ``pending = []``
and ``pending.append(...)``): it asks whether there is work, not whether a switch is on, so
words in the collection's name (``cuda_tensors_to_validate``) say what the items are for, not
that the branch is for debugging.

flashinfer 0.7.2 ``page.py:891``: ``_as_float32_scalar_tensors`` collects the CUDA scale
tensors ``cuda_tensors_to_validate`` and, ``if cuda_tensors_to_validate:``, reads them back
with one ``torch.stack(...).cpu().tolist()`` on every append to the paged KV cache; the word
``validate`` in the test made it a debugging branch (``hot_guards.DEBUG_WORDS``).
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.names import len_operand
from h2dlint.analysis.provenance import Provenance

# Displays and comprehensions of collections, and the calls that make an empty one.
_COLLECTIONS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
_MAKERS = frozenset({"list", "dict", "set", "defaultdict", "OrderedDict", "deque"})


def built_collection_test(provenance: Provenance, test: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``test`` is a local name (or ``not`` one, or ``len`` of one) that every binding
    reaching it binds to a collection display, comprehension or ``list()``-like call; a
    parameter, an attribute (``self.validate``) or a name bound to anything else is not."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    test = len_operand(test)
    if not isinstance(test, cst.Name):
        return False
    values = provenance.bindings(frame).reaching(test)
    return bool(values) and all(_collection(value) for value in values)


def _collection(value: cst.BaseExpression | None) -> bool:
    if isinstance(value, _COLLECTIONS):
        return True
    if isinstance(value, cst.Call):
        func = value.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        return name in _MAKERS
    return False


__all__ = ["built_collection_test"]

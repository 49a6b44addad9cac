"""A name that a loop binds to a mapping's keys: ``feature`` of ``for feature, spec in
features.items()`` or of ``for feature in features.keys()`` (session 47, FuxiCTR's
``FeatureEmbeddingDict.dict2tensor``: ``if feature in embedding_dict`` over a dict of device
embeddings keyed by feature name, reported at HIGH as a read of the device).

A membership test of such a key (``key in container``) is Python's: ``.items()`` and ``.keys()``
are a mapping's methods (a tensor has neither), a mapping's keys are hashable names or numbers,
and the container it is tested against is then another mapping or a list of names, not a tensor
whose ``__contains__`` would read the device. A key bound any other way (``for i in range(n)``,
``for v in d.values()``) or also bound elsewhere before the test keeps the test as it was.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance

_KEY_METHODS = frozenset({"items", "keys"})


def key_membership_of_loop(provenance: Provenance, node: cst.Comparison, frame: Frame) -> bool:
    """Whether ``node`` is ``key in c`` / ``key not in c`` of a ``key`` every binding of which
    that reaches the test is a loop's key of a mapping (see the module's docs)."""
    if not all(isinstance(c.operator, (cst.In, cst.NotIn)) for c in node.comparisons):
        return False
    left = node.left
    if not isinstance(left, cst.Name):
        return False
    bindings = provenance.bindings(frame).reaching_bindings(left)
    return bool(bindings) and all(_loop_key(b.statement, left.value) for b in bindings)


def _loop_key(statement: cst.CSTNode, name: str) -> bool:
    """Whether ``statement`` is a ``for`` loop over ``m.items()`` / ``m.keys()`` that binds
    ``name`` to the key."""
    if not isinstance(statement, cst.For):
        return False
    iterable = statement.iter
    if not (
        isinstance(iterable, cst.Call)
        and not iterable.args
        and isinstance(iterable.func, cst.Attribute)
        and iterable.func.attr.value in _KEY_METHODS
    ):
        return False
    target = statement.target
    if iterable.func.attr.value == "keys":
        return isinstance(target, cst.Name) and target.value == name
    if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
        return False
    key = target.elements[0].value
    return isinstance(key, cst.Name) and key.value == name

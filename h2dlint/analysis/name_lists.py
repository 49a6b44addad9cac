"""A list of names built from objects' ``.name`` (session 47, Torch-RecHub's ONNX exporter:
``input_names = [f.name for f in features]``, then ``dummy_input[name].to(self.device) for name
in input_names``): each item is a name, so the loop over it takes a mapping's named fields, one
per feature, which one copy cannot carry (as a list of a mapping's keys,
:func:`loop_iterables.mapping_keys`). A comprehension of anything else (``[f.weight for f in
features]``, ``[t[0] for t in pairs]``) is no list of names.
"""

from __future__ import annotations

import libcst as cst

# The attributes that hold an object's name: a string by every convention that uses them.
_NAME_ATTRIBUTES = frozenset({"name", "feature_name"})


def names_of_objects(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is ``[x.name for x in xs]`` (a list comprehension or the ``list(...)``
    of a generator of the same shape)."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "list"
        and len(node.args) == 1
        and isinstance(node.args[0].value, cst.GeneratorExp)
    ):
        node = node.args[0].value
    if not isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return False
    element = node.elt
    target = node.for_in.target
    return (
        node.for_in.inner_for_in is None
        and isinstance(element, cst.Attribute)
        and element.attr.value in _NAME_ATTRIBUTES
        and isinstance(element.value, cst.Name)
        and isinstance(target, cst.Name)
        and element.value.value == target.value
    )

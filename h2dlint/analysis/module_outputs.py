"""A loop over what a submodule's call returned: ``edges = self.network(x)``, then ``for e in
edges``.

A torch module's call is where its input is (on the device), but what it returns may be one
tensor or a tuple or list of tensors (a HED network's side outputs, each of its own size; a
model's several heads). A loop over it walks the rows of one tensor only in the first case: in
the second it walks whole tensors, whose copies cannot be joined into one and wait for the
stream once between them (the first copy waits for the call; the rest find it done). HTD201
reports such a walk at MEDIUM confidence, certain only if the call returns one tensor.

Session 39 (reads39): a comprehension that only copies each output to the host
(``[e.detach().cpu().numpy() for e in edges]``, HED's side outputs) is left alone: it queues
no device work between its copies, so only the first one waits, whatever the call returns (0
of 2 such labelled rows were true). A loop that computes on each output before reading it
(surya's ``res["scores"] > threshold`` per image's result) stays reported.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance


def _submodule_call(node: cst.BaseExpression, frame: Frame) -> cst.Call | None:
    """``self.net(x)``: a call of an attribute of the method's own object."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return None
    owner = node.func.value
    if isinstance(owner, cst.Name) and frame.self_name and owner.value == frame.self_name:
        return node
    return None


def walked_module_output(
    provenance: Provenance, walked: cst.BaseExpression | None, frame: Frame
) -> cst.Call | None:
    """The call ``self.<module>(...)`` a loop walks the result of, directly (``for e in
    self.net(x)``) or through a local name bound only to such calls; None otherwise."""
    if walked is None:
        return None
    if isinstance(walked, cst.Name):
        values = provenance.bindings(frame).reaching(walked)
        if not values or any(value is None for value in values):
            return None
        calls = [_submodule_call(value, frame) for value in values if value is not None]
        return calls[0] if calls and all(call is not None for call in calls) else None
    return _submodule_call(walked, frame)


# Methods of a copy chain: views, casts and the copy itself, no device computation.
_COPY_CHAIN = frozenset(
    {"detach", "cpu", "numpy", "to", "float", "half", "double", "astype", "contiguous", "clone"}
    | {"squeeze", "tolist", "item"}
)


def copies_each_output(loop: cst.CSTNode) -> bool:
    """``[e.detach().cpu().numpy()[0, 0] for e in edges]``: a comprehension with no condition
    whose element is its target through a copy chain (:data:`_COPY_CHAIN` methods, subscripts)
    only."""
    if not isinstance(loop, cst.ListComp) or loop.for_in.ifs or loop.for_in.inner_for_in:
        return False
    target = loop.for_in.target
    if not isinstance(target, cst.Name):
        return False
    node: cst.BaseExpression = loop.elt
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value not in _COPY_CHAIN:
                return False
            node = node.func.value
        else:
            return isinstance(node, cst.Name) and node.value == target.value

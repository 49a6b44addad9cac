"""A loop over what a submodule's call returned: ``edges = self.network(x)``, then ``for e in
edges``.

A torch module's call is where its input is (on the device), but what it returns may be one
tensor or a tuple or list of tensors (a HED network's side outputs, each of its own size; a
model's several heads). A loop over it walks the rows of one tensor only in the first case: in
the second it walks whole tensors, whose copies cannot be joined into one and wait for the
stream once between them (the first copy waits for the call; the rest find it done). HTD201
reports such a walk at MEDIUM confidence, certain only if the call returns one tensor.
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

"""A device borrowed from a tensor: ``device=x.device``, or a name bound only to ``x.device``.

``x.device`` names where ``x`` is, the host as well as an accelerator. ``targets.device_target``
reads it by its name (a device), which is the right guess in model code, but it proves the
device only when ``x`` is proven there: a data transform's ``device = item_seq.device`` or a
collate's ``device=data_i.device`` is the host's, where ``torch.tensor(data, device=device)``
copies nothing. A rule that would say HIGH for such an allocation says MEDIUM, naming ``x``.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.value_syncs import value_where


def _lender(node: cst.BaseExpression, frame: Frame) -> cst.BaseExpression | None:
    """``x`` of ``x.device`` when ``x`` is a value of the function (a name, its attribute or
    item), not the object the method belongs to (``self.device``, ``self.weight.device``:
    where a module's state lives)."""
    if not isinstance(node, cst.Attribute) or node.attr.value != "device":
        return None
    root: cst.BaseExpression = node.value
    while isinstance(root, (cst.Attribute, cst.Subscript)):
        root = root.value
    if not isinstance(root, cst.Name) or root.value == frame.self_name:
        return None
    return node.value


def borrowed_device(
    provenance: Provenance, device: cst.BaseExpression, frame: Frame
) -> cst.BaseExpression | None:
    """The tensor whose ``.device`` ``device`` is, directly or through a local name bound only
    to such attributes, when that tensor is not proven on the device; None otherwise."""
    values: list[cst.BaseExpression] = [device]
    if isinstance(device, cst.Name):
        reaching = provenance.bindings(frame).reaching(device)
        if not reaching or any(value is None for value in reaching):
            return None
        values = [value for value in reaching if value is not None]
    lenders = [_lender(value, frame) for value in values]
    if any(lender is None for lender in lenders):
        return None
    for lender in lenders:
        assert lender is not None
        if value_where(provenance, lender, frame) is not Where.DEVICE:
            return lender
    return None

"""Attributes a class allocates on the host by an explicit device (session 45, mine45).

``self.block_to_slot = torch.full((n,), -1, device="cpu")`` in ``__init__``, and nothing else
assigned to ``self.block_to_slot`` in the class: ``self.block_to_slot.device`` is the host,
whatever the word ``device`` says. Megatron-core 0.18 moved its Mamba slot allocator's
bookkeeping tensors to the CPU this way, and its ``torch.tensor(new_bids,
device=self.block_to_slot.device)`` became a host construction (0.17.1 allocated the same
attributes on ``torch.cuda.current_device()``: there the constructions copy to the GPU).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.analysis.frames import Frame

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource


def explicit_host_attribute(
    provenance: FactSource,
    node: cst.BaseExpression,
    frame: Frame,
    names_host: Callable[[cst.BaseExpression, Frame], bool],
) -> bool:
    """Whether ``node`` is ``self.<attr>`` of the enclosing class and every value the class
    assigns to that attribute is a call given ``device=`` that names the host
    (``torch.zeros(n, device="cpu")``, ``device=torch.device("cpu")``). A value without
    ``device=`` (the default device may be set elsewhere), one not a call (``= x.to(d)`` is a
    call with no ``device=`` keyword too) or a device the analysis cannot name leaves the
    attribute unproven. ``names_host`` tells whether a ``device=`` value, read in the frame of
    its assignment, names the host (``targets.device_target`` of an allocation)."""
    if not (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and frame.cls is not None
        and node.value.value == frame.self_name
    ):
        return False
    assigned = provenance.index.attributes.get(frame.cls, {}).get(node.attr.value, [])
    if not assigned:
        return False
    for value, value_frame in assigned:
        if not isinstance(value, cst.Call):
            return False
        device = keyword(value, "device")
        if device is None:
            return False
        if not names_host(device.value, value_frame):
            return False
    return True

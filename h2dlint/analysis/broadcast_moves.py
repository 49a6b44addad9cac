"""Broadcast views moved to a device: ``lam.view(-1, 1, 1, 1).expand_as(x).to(x.device)``.

A broadcast view has stride 0 along its expanded dimensions; ``.to`` cannot keep overlapping
strides, so it allocates and copies the full expanded size, every repeated element, where
copying ``lam`` and expanding on the device moves ``lam``'s few values (kornia 0.8's MixUp
copied an image-sized tensor of per-sample weights per batch, fixed in 0.9). HTD301 asks this
(session 35, recall35).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.provenance import Provenance

# Views that repeat elements with stride 0; a copy of one materialises every repeat.
BROADCASTS = frozenset({"expand", "expand_as", "broadcast_to"})


@dataclass(frozen=True)
class Broadcast:
    """The tensor a moved broadcast view repeats, how (``expand_as``...), and whether the
    analysis proves it on the host (the only case worth a finding: of unknown placement it is
    mostly a device mask made from the model's ids and moved defensively,
    ``mask.unsqueeze(-1).expand_as(embeds).to(embeds.device)``, some forty times in
    transformers, where ``.to`` is a no-op)."""

    source: cst.BaseExpression
    how: str
    on_host: bool


def moved_broadcast(provenance: Provenance, receiver: cst.BaseExpression) -> Broadcast | None:
    """``receiver`` of a ``.to(...)``/``.cuda()`` as a broadcast view, or None."""
    if not isinstance(receiver, cst.Call):
        return None
    inner = receiver.func
    if isinstance(inner, cst.Attribute) and inner.attr.value in BROADCASTS:
        source: cst.BaseExpression = inner.value
        how = inner.attr.value
    elif provenance.qualify(inner) == "torch.broadcast_to" and receiver.args:
        source, how = receiver.args[0].value, "broadcast_to"
    else:
        return None
    where = provenance.where(source, provenance.current_frame())
    return Broadcast(source, how, where.on_host)

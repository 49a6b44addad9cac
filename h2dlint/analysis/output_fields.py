"""A field of a value on the device, read with ``.item()`` or ``.tolist()``: the output of an
``nn.Module`` call is on the module's device (``outputs = self.model(**batch)``), and the
fields of what a model returns (``outputs.loss``, ``outputs.flow_loss`` of a ``ModelOutput``)
are its tensors; only arrays offer those reads, so the field read is a tensor's (lerobot's WallX
``forward`` read three losses of its model's output with ``.item()`` on every training step).
Metadata fields (``.shape``, ``.dtype``, ``.device``) are no tensors.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance

# Fields of a tensor that are no tensors (their reads are Python values or no arrays at all).
_METADATA_FIELDS = frozenset(
    {"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad", "names"}
)


def device_output_field(provenance: Provenance, node: cst.Attribute, frame: Frame) -> bool:
    """Whether ``node`` (``outputs.loss``) is a field, other than metadata, of a name or
    attribute the analysis places on the device (an ``nn.Module``'s output)."""
    if node.attr.value in _METADATA_FIELDS:
        return False
    if not isinstance(node.value, (cst.Name, cst.Attribute)):
        return False
    return provenance.fact(node.value, frame).where is Where.DEVICE

"""Whether a sync HTD202 would report at MEDIUM confidence (a read of a tensor whose device is
unknown) still reads something that may be a device tensor: the tensor it surely is or is
computed from (:func:`~h2dlint.analysis.unknown_tensors.tensor_root`), not host data, not a
tensor whose name says host, not the function's own input handed to numpy or to a host
library, and not a name the function shows to be host memory (mixed with a host-made tensor,
or copied to a device with ``non_blocking=True``: :mod:`~h2dlint.analysis.host_company`).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.env_steps import handed_to_environment
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_company import shown_on_host
from h2dlint.analysis.host_inputs import input_handed_to_numpy
from h2dlint.analysis.library_inputs import input_handed_to_library
from h2dlint.analysis.name_hints import named_host, on_host_by_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.unknown_tensors import tensor_root
from h2dlint.context import FileContext

# The ways of reading a tensor that are judged without a proven device (MEDIUM): a read, a
# value added back to a device tensor, elements, a host copy, a test, a size, a mask (read or
# written through), repeats, a data-sized result.
UNKNOWN_DEVICE_KINDS = frozenset(
    {"read", "round-trip", "elements", "copy", "test", "size", "mask", "mask-write"}
    | {"repeat_interleave", "data-sized", "scalar"}
)


def unknown_device_root(
    context: FileContext,
    tensor: cst.BaseExpression,
    frame: Frame,
    kind: str,
    explicit: cst.Call | None,
    sizes: bool,
) -> cst.BaseExpression | None:
    """The tensor that the read ``kind`` of ``tensor`` (device unknown) reads, when it may be a
    device tensor (the finding names it); None when the read is no sync to report.
    ``explicit`` is the read call (``.item()``, ``.cpu()``); ``sizes``: ``tensor`` is used as a
    size (see :func:`tensor_root`)."""
    if kind not in UNKNOWN_DEVICE_KINDS:
        return None
    provenance = Provenance.of(context)
    # A number added straight back into a device tensor was read from a tensor
    # (``total += n.item()``): ``n`` may be a host tensor (the read is then free).
    if kind == "round-trip":
        root: cst.BaseExpression | None = tensor
    else:
        root = tensor_root(context, tensor, frame, explicit, sizes)
    if root is None or provenance.is_host_data(tensor, frame):
        return None
    # A CPU reference implementation (``fill_cpu``) reads its own host tensors; a ``.cpu()``
    # copy in a function named for what it makes (``get_cpu_seqlens``) still copies a tensor
    # that may be on the device.
    if on_host_by_name(tensor, frame) and not (kind == "copy" and not named_host(tensor)):
        return None
    if kind == "copy" and _handed_to_host(provenance, context.ancestors, tensor, frame):
        return None
    # The function shows the tensor to be host memory: it mixes it with a host-made tensor, or
    # copies it to a device with ``non_blocking=True`` (``host_company``, session 49).
    if shown_on_host(context, context.ancestors, root):
        return None
    return root


def _handed_to_host(
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    tensor: cst.BaseExpression,
    frame: Frame,
) -> bool:
    """The function's own input handed to numpy (``im.cpu().numpy()`` for an exported model's
    runtime: the caller chose where it is, and the values must reach the host), or to a host
    library (``pesq(fs, target.cpu().numpy(), ...)``: the hand-off the library needs, read at
    once, nothing to overlap)."""
    return (
        input_handed_to_numpy(provenance, ancestors, tensor, frame)
        or input_handed_to_library(provenance, ancestors, tensor, frame)
        or handed_to_environment(provenance, ancestors, frame)
    )

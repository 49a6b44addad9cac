"""Displays of Python numbers: ``[0.299, 0.587, 0.114]``, ``[[1, 0], [0, w - 1]]``.

``torch.tensor(display, device=d)`` builds such a literal in pageable host memory and copies it
to the device with a blocking copy, as ``torch.tensor(0.0, device=d)`` does for one number
(HTD107): kornia 0.8's grayscale weights, rotation centres and flip matrices, per call. Every
element must be a number :func:`h2dlint.analysis.host_data.host_scalar` proves (a literal, a
size, arithmetic of those); nested lists and tuples count, up to :data:`MAX_NUMBERS` numbers
(a table longer than that is data, not a constant).
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import host_scalar
from h2dlint.analysis.provenance import Provenance

MAX_NUMBERS = 64
MAX_DEPTH = 3


def number_display(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> int | None:
    """How many numbers the list or tuple display ``node`` holds (two or more), when every
    element is a proven Python number or such a display; None otherwise."""
    count = _count(provenance, node, frame, 0)
    return count if count is not None and count >= 2 else None


def _count(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int
) -> int | None:
    if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements or depth >= MAX_DEPTH:
        return None
    total = 0
    for element in node.elements:
        if isinstance(element, cst.StarredElement):
            return None
        value = element.value
        if isinstance(value, (cst.List, cst.Tuple)):
            inner = _count(provenance, value, frame, depth + 1)
            if inner is None:
                return None
            total += inner
        elif host_scalar(provenance, value, frame):
            total += 1
        else:
            return None
        if total > MAX_NUMBERS:
            return None
    return total

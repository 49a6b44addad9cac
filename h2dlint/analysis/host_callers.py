"""Rows of a parameter that every call of the function passes on the host (HTD201, MEDIUM
findings only: rows not proven on a device).

A helper that turns sampled values into host objects reads them row by row
(``float(coord_values[i, 0].item())``); it is a sync per row only if its callers hand it device
tensors. Kestrel 0.9.2's ``render_tokens_from_packed`` (``scheduler/tokens.py:102``) is called
twice, from another module, with ``coord_out.cpu()`` and with ``slot.coord_cpu[:batch_size]``,
the host staging buffer the runtime copied into before it waited on the copy's event: both host
tensors, the ``.item()`` per row reads host memory. Argument flow places the first
(``project/passed_args.py``: ``c``), not the second (an attribute of an object of unknown
class); here an argument the calling module cannot place counts as host when its name says so
(``*_cpu``, ``host_*``, ``pinned``: :func:`~h2dlint.analysis.arguments.host_named`), the
convention the other MEDIUM checks already trust for the tensor itself.

Only where every call is known (:func:`~h2dlint.analysis.argument_flow.passed`), at least one
passes a tensor or data, and each passes host data: a call that passes ``None`` adds nothing,
and one passing anything else (a device tensor, an unknown value, ``*args``) keeps the rows
reported. The tensor must be the parameter itself at the read (no other binding of the name
reaches it), sliced or indexed.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.argument_flow import passed
from h2dlint.analysis.arguments import host_named
from h2dlint.analysis.chained_arguments import argument_at
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame

# Codes of ``project/passed_args.py`` for host values: numpy, Python data, pageable, pinned.
_HOST_CODES = frozenset("nlcp")


def passed_on_host(
    source: FactSource, ancestors: Sequence[cst.CSTNode], tensor: cst.BaseExpression | None
) -> bool:
    """Whether ``tensor`` (a parameter, or a slice of one, read inside ``ancestors``' innermost
    function) is host data on every call of that function (see the module)."""
    root = tensor
    while isinstance(root, cst.Subscript):
        root = root.value
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    if not isinstance(root, cst.Name) or function is None:
        return False
    frame = source.index.frame_of(function)
    if not source.bindings(frame).is_parameter(root):
        return False
    flow = passed(source, function, root.value)
    if flow is None or any(code not in _HOST_CODES and code not in "0?" for code in flow.remote):
        return False
    told = [a for a in flow.local if not _none(a.value)]
    if not all(host_value(a.source, a.value, a.frame) for a in told):
        return False
    for site, slot in flow.pending:
        found = argument_at(source, site, slot)
        if found is None or not host_value(*found):
            return False
    return bool(told or flow.pending or any(c in _HOST_CODES for c in flow.remote))


def host_value(source: FactSource, value: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``value`` is host data in ``frame``: by its name, its proven place, or numpy."""
    return (
        host_named(value)
        or source.fact(value, frame).where.on_host
        or source.is_numpy_array(value, frame)
    )


def _none(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


__all__ = ["host_value", "passed_on_host"]

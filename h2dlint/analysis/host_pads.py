"""A pad built on the host, filled with a tensor and moved to that tensor's device (HTD303).

StyleTTS2-style encoders (kokoro 0.7) pad an LSTM's output like this on every forward::

    x_pad = torch.zeros([x.shape[0], x.shape[1], m.shape[-1]])
    x_pad[:, :, :x.shape[-1]] = x
    x = x_pad.to(x.device)

When ``x`` is on the GPU, the write copies it to the host (a blocking read that waits for
every queued kernel) and the move copies the whole pad back: a round trip of the activation
that ``torch.zeros(..., device=x.device)`` avoids (kokoro 0.9 does so). When ``x`` is on the
host the move is a no-op, so the finding is certain only on an accelerator.

The shape, exactly: a local name bound once, to a shape factory (``torch.zeros``/``ones``/
``empty``/``full``) with no ``device=``, ``out=`` or ``pin_memory=``; every use of it in the
function either reads its metadata (``x_pad.shape``), writes ranges of it with one tensor
``x`` (``x_pad[...] = x``), or is the move ``x_pad.to(x.device)`` to that same tensor's
device; at least one such write.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.walk import visit_read_only

PAD_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full"})
_NOT_HOST_KEYWORDS = ("device", "out", "pin_memory")
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "size", "dim", "numel"})


def host_pad(provenance: Provenance, call: cst.Call, frame: Frame) -> tuple[str, str] | None:
    """``(pad, tensor)`` when ``call`` is ``pad.to(tensor.device)`` of the shape in the
    module's docs; else None."""
    func = call.func
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value == "to"
        and isinstance(func.value, cst.Name)
        and isinstance(frame.function, cst.FunctionDef)
    ):
        return None
    device = keyword(call, "device")
    target = first_positional(call) or (device.value if device is not None else None)
    if not (
        isinstance(target, cst.Attribute)
        and target.attr.value == "device"
        and isinstance(target.value, cst.Name)
    ):
        return None
    pad, tensor = func.value.value, target.value.value
    if pad == tensor or not _host_factory(provenance, func.value, frame):
        return None
    uses = _PadUses(pad, tensor, call)
    visit_read_only(frame.function.body, uses)
    return (pad, tensor) if uses.writes and not uses.other else None


def _host_factory(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    bindings = provenance.bindings(frame)
    values = bindings.of(name.value)
    if len(values) != 1 or values[0] is None or bindings.is_parameter(name):
        return False
    value = values[0]
    return (
        isinstance(value, cst.Call)
        and provenance.qualify(value.func) in PAD_FACTORIES
        and not any(keyword(value, k) is not None for k in _NOT_HOST_KEYWORDS)
    )


class _PadUses(cst.CSTVisitor):
    """Counts the pad's range writes of the tensor and any use that is none of the shape's."""

    def __init__(self, pad: str, tensor: str, move: cst.Call) -> None:
        self.pad = pad
        self.tensor = tensor
        self.move = move
        self.writes = 0
        self.other = False

    def visit_Assign(self, node: cst.Assign) -> bool:
        if len(node.targets) != 1:
            return True
        target = node.targets[0].target
        if isinstance(target, cst.Name) and target.value == self.pad:
            visit_read_only(node.value, self)  # its one binding
            return False
        if (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and target.value.value == self.pad
        ):
            if isinstance(node.value, cst.Name) and node.value.value == self.tensor:
                self.writes += 1
            else:
                self.other = True
            for element in target.slice:
                visit_read_only(element, self)
            return False
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        if node is self.move:
            for arg in node.args:
                visit_read_only(arg, self)
            return False
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return not (isinstance(node.value, cst.Name) and node.attr.value in _METADATA)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.pad:
            self.other = True

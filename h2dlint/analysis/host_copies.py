"""Copies to the host (``x.cpu()``, ``x.to("cpu")``) of a tensor that is on the device or
surely a tensor not known to be on the host: HTD302 asks whether one inside a loop copies a
value the loop does not change (session 19: sentence-transformers 5.5's sparse search copied
the coalesced query indices to the host once per query; 6.0 copies them once, before the
loop)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.device_loops import device_loop
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_calls import STEP_WORK_WORDS
from h2dlint.analysis.name_hints import module_named
from h2dlint.analysis.names import call_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.diagnostics import Confidence
from h2dlint.walk import visit_read_only


def host_copy_of(
    provenance: Provenance, node: cst.Call, name: str, frame: Frame
) -> tuple[cst.BaseExpression, Confidence] | None:
    """For ``node``, a call of ``name`` (``cpu``, ``to``) that copies a tensor to the host:
    the copied expression, with HIGH confidence when it is on the device and MEDIUM when it is
    surely a tensor of unknown place. None for anything else, and for a value on the host."""
    func = node.func
    if not isinstance(func, cst.Attribute) or name not in ("cpu", "to"):
        return None
    if name == "cpu" and node.args:
        return None
    if name == "to" and provenance.to_target(node, frame) is not Target.HOST:
        return None
    source = func.value
    where = provenance.where(source, frame)
    if where is Where.DEVICE:
        return source, Confidence.HIGH
    if where.on_host or provenance.is_host_data(source, frame):
        return None
    if tensor_evidence(provenance, source, frame) is not None or _indexed_tensor(source):
        return source, Confidence.MEDIUM
    return None


def _indexed_tensor(source: cst.BaseExpression) -> bool:
    """``x.indices()[0]`` of ``x.indices()[0].cpu()``: an element or slice of a method's
    result, which only a tensor copies with ``.cpu()`` (a module's children are attributes;
    ``self.layers[0]`` of a module list is named for modules and left alone)."""
    if not isinstance(source, cst.Subscript):
        return False
    value = source.value
    while isinstance(value, cst.Subscript):
        value = value.value
    return isinstance(value, cst.Call) and not module_named(value.func)


def quiet_loop(provenance: Provenance, loop: cst.For | cst.While, frame: Frame) -> bool:
    """Whether ``loop``'s body runs no device work that may change a device tensor in place
    unseen: no model call, backward pass, optimizer step or graph replay (``opt.step()``
    updates the parameters a name bound before the loop holds). Only in such a loop is a
    device value the body never writes the same on every iteration."""
    if device_loop(provenance, loop, frame).global_work is not None:
        return False
    finder = _ModelCalls()
    visit_read_only(loop.body, finder)
    return not finder.found


class _ModelCalls(cst.CSTVisitor):
    """Whether a loop body calls a model: a callee whose own name holds one of
    :data:`~h2dlint.analysis.hot_calls.STEP_WORK_WORDS` (``self.model(...)``,
    ``transformer(...)``, ``self.denoise_step(...)``, any ``.step()``), not a name on the way
    to it (``models.SparseVector(...)`` of a search client builds a query)."""

    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        name = (call_name(node) or "").lower()
        if name == "step" or any(word in name for word in STEP_WORK_WORDS if "." not in word):
            self.found = True
        return not self.found

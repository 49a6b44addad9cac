"""Loops that carry a tensor from one iteration to the next: a greedy selection
(``idx = torch.argmax(min_dist)`` bound in the body, read by the next iteration's
``norm(x - x[idx])``), an iterative solver's estimate, a sampler's running state. Every
iteration then computes on the tensor's device, and a host read of the carried value (or of a
value computed from it) in the body waits for that iteration's kernels: one sync per iteration,
where keeping the values on the device and copying them once after the loop
(``torch.stack(picked).tolist()``) would do. :mod:`~h2dlint.analysis.device_loops` counts such a
loop as one whose every iteration runs device work.

A name is carried when the body binds it to a tensor computed by torch (a ``torch.*`` function
that is no factory of host data, a method only tensors have, a call of the project annotated to
return a tensor) and reads it before that binding in the same iteration (or in the binding's own
value: ``state = torch.minimum(state, d)``). A value proven to be on the host carries nothing.
Only the body's own statements count: not nested functions, classes or lambdas, nor the loop's
target (a row loop's rows are HTD201's)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.returned_tensors import returned_annotation
from h2dlint.analysis.torch_api import FRESH_FACTORIES, TENSOR_ONLY_METHODS
from h2dlint.analysis.tuple_annotations import tensor_annotation
from h2dlint.walk import OwnScopeVisitor, visit_read_only

# torch functions that build a tensor from Python data or a shape: a new value, not one carried.
_HOST_MAKERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.Tensor"})


class _Events(OwnScopeVisitor):
    """The names a loop body reads and binds, in the order they run: an assignment's value
    before its targets; ``x[i] = ...`` and ``x.a = ...`` read ``x``; ``x += y`` reads ``x``.
    Nested functions, classes and lambdas are not the body's."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}  # name -> "read" or "bind", whichever ran first
        self.bindings: list[tuple[str, cst.BaseExpression]] = []

    def _event(self, name: str, kind: str) -> None:
        self.first.setdefault(name, kind)

    def visit_Name(self, node: cst.Name) -> None:
        self._event(node.value, "read")

    def visit_Assign(self, node: cst.Assign) -> bool:
        visit_read_only(node.value, self)
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._event(target.target.value, "bind")
                self.bindings.append((target.target.value, node.value))
            elif isinstance(target.target, (cst.Tuple, cst.List)):
                for element in target.target.elements:
                    if isinstance(element.value, cst.Name):
                        self._event(element.value.value, "bind")
                    else:
                        visit_read_only(element.value, self)
            else:
                visit_read_only(target.target, self)
        return False


def _torch_computed(provenance: Provenance, value: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``value`` is a tensor torch computes (not host data made into one, not a value
    proven to be on the host)."""
    call = value
    while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
        if call.func.attr.value not in ("squeeze", "unsqueeze", "view", "reshape", "flatten"):
            break
        call = call.func.value  # a shape change of the computed value
    if not isinstance(call, cst.Call):
        return False
    if provenance.fact(value, frame).where.on_host:
        return False
    qualified = provenance.qualify(call.func) or ""
    if qualified.startswith("torch."):
        return qualified not in _HOST_MAKERS and qualified not in FRESH_FACTORIES
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in TENSOR_ONLY_METHODS:
        return call.func.attr.value not in ("tolist", "item", "cpu", "numpy")
    found = returned_annotation(provenance, call, frame)
    return found is not None and tensor_annotation(found[0], found[1])


def carried_tensors(
    provenance: Provenance, loop: cst.For | cst.While, frame: Frame
) -> dict[str, cst.BaseExpression]:
    """The names ``loop``'s body carries from one iteration to the next as tensors torch
    computes on every iteration (read in the iteration before the body binds them), each with
    the value the body binds it to."""
    events = _Events()
    visit_read_only(loop.body, events)
    excluded: set[str] = set()
    if isinstance(loop, cst.For):
        targets = _Events()
        visit_read_only(loop.target, targets)
        excluded = set(targets.first)
    carried: dict[str, cst.BaseExpression] = {}
    for name, value in events.bindings:
        if name in excluded or name in carried or events.first.get(name) != "read":
            continue
        if _torch_computed(provenance, value, frame):
            carried[name] = value
    return carried

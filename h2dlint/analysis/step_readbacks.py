"""Each step's model output copied into its own slot of a host buffer, one blocking copy per
step of a loop of model steps (HTD101, the device-to-host direction).

A drafting or decoding loop that writes each step's sampled ids into a column of a pinned host
buffer waits for every step before queueing the next::

    for idx in range(window):
        state = self.draft_model.forward(batch_ids, params)
        new_ids = self.draft_model.sample_from_state(state, params)
        self.draft_ids_pinned[:bs, idx:idx + 1].copy_(new_ids)

(exllamav3 1.6.4's MTP drafting, fixed in 1.6.5 by keeping the columns on the device and
copying the joined window once after the loop.) A loop is a *step readback loop* when

- it is a ``for`` loop over a ``range`` (steps, not a collection of inputs: an evaluation pass
  writing each batch's outputs to the host needs them there);
- a statement of its own body, not nested in a branch, is ``dst.copy_(src)`` without
  ``non_blocking=True``, where ``dst`` indexes a tensor proven on the host by the loop's
  counter (a slot per step: ``buf[:, idx:idx + 1]``, ``buf[i]``);
- ``src`` is a name the body binds to a call of the model or a part of it
  (``step_drivers.model_call``: ``self.draft_model.sample_from_state(...)``,
  ``model(...)``), whose output is made on the device.

Where ``src`` lives is not proven (a model's method could return host data), so the rule
reports it with MEDIUM confidence.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, is_true, keyword
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.loop_transfers import called_method
from h2dlint.analysis.names import names_in, target_names
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.step_drivers import model_call


def _model_outputs(body: cst.IndentedBlock) -> set[str]:
    """The names the body's own statements bind to a model call."""
    found: set[str] = set()
    for line in body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and isinstance(small.value, cst.Call)
                and model_call(small.value)
            ):
                found.add(small.targets[0].target.value)
    return found


def step_readback(
    node: cst.For, provenance: Provenance, frame: Frame
) -> tuple[cst.Call, cst.Name] | None:
    """The blocking copy of a step's model output into a host slot, and the output's name, when
    ``node`` is a step readback loop (see the module's docstring)."""
    iterable = node.iter
    if not (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value == "range"
        and isinstance(node.body, cst.IndentedBlock)
    ):
        return None
    counters = target_names(node.target)
    outputs = _model_outputs(node.body)
    if not outputs:
        return None
    for line in node.body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
                continue
            call = small.value
            source = first_positional(call)
            if called_method(call) != "copy_" or not isinstance(source, cst.Name):
                continue
            blocking = keyword(call, "non_blocking")
            if source.value not in outputs or (blocking is not None and is_true(blocking.value)):
                continue
            assert isinstance(call.func, cst.Attribute)
            slot = call.func.value
            if not (
                isinstance(slot, cst.Subscript)
                and any(names_in(element) & counters for element in slot.slice)
            ):
                continue
            if provenance.where(slot.value, frame).on_host:
                return call, source
    return None

"""A sampler's per-step schedule handed in as a bare parameter (HTD202's per-step reads).

k-diffusion's samplers, and the many copies of them (ComfyUI's, NeMo's, imaginAIry's
vendored one, ModelScope's solvers), take the noise schedule as a parameter with no
annotation and walk it step by step::

    def sample_heun(model, x, sigmas, ...):
        s_in = x.new_ones([x.shape[0]])
        for i in trange(len(sigmas) - 1):
            denoised = model(x, sigmas[i] * s_in)
            ...
            if sigmas[i + 1] == 0:

``sigmas`` is made by the caller on the model's device (``get_sigmas_karras(..., device=)``,
``model_wrap.get_sigmas(n)``), so each test of an element waits for the step the model just
queued (k-diffusion issue #108; AUTOMATIC1111's webui keeps the sigmas on the CPU since PR
15823 to remove that wait). Nothing in the function proves ``sigmas`` a tensor, and the
loop walks the positions of a collection (``len(sigmas)``), which
:func:`~h2dlint.analysis.tested_tensors.model_steps_reason` leaves alone (an evaluation
pass over batches).

What makes the element a step's schedule value, at MEDIUM confidence: ``P[...]`` of a
parameter ``P`` the function never rebinds (no annotation, or a tensor's), indexed by the
target of the ``for`` loop around it, a loop over ``range``/``trange``/``tqdm(range(...))``
whose own body hands an element of ``P`` to the model (``model(x, sigmas[i] * s_in)``,
directly or through a name the body binds from one: ``sigma_hat = sigmas[i] * (gamma + 1)``)
next to a tensor (the model's other inputs, or an operand of the same arithmetic, are
tensors by how they were made). A loop over a collection whose items are the model's inputs
(``model(batches[i])``) is no schedule: the element must be combined with a tensor, not be
the whole input.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.name_hints import named_host
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.step_drivers import model_call
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.analysis.tuple_annotations import tensor_annotation, unchanged_parameter_annotation
from h2dlint.walk import OwnLoopBodyVisitor, visit_read_only

SCHEDULE_REASON = "a sampling loop whose every iteration runs a model on an element of the schedule"

# Loops over a range of steps, and tqdm's progress-bar forms of it.
_RANGE_CALLS = frozenset({"range", "trange"})


def schedule_loop(
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    node: cst.BaseExpression,
    frame: Frame,
) -> cst.For | None:
    """The loop of steps around ``node`` (below ``ancestors``, root first) when ``node`` is
    an element of the step schedule (see the module's docs), or a name the loop's body binds
    from elements only (:func:`_derived_loop`); else None."""
    if isinstance(node, cst.Name):
        return _derived_loop(provenance, ancestors, node, frame)
    if not (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
    ):
        return None
    schedule = node.value
    if not _bare_parameter(provenance, schedule, frame) or named_host(schedule):
        return None
    index_names = _names(node.slice[0].slice.value)
    for parent in reversed(ancestors):
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return None
        if (
            isinstance(parent, cst.For)
            and isinstance(parent.target, cst.Name)
            and parent.target.value in index_names
        ):
            if _range_of_steps(parent.iter) and _drives_model(
                provenance, parent, schedule.value, frame
            ):
                return parent
            return None
    return None


# Calls that make a host number of a value: a name bound through one is host data.
_HOST_CONVERSIONS = frozenset({"float", "int", "item", "tolist", "bool"})


def _derived_loop(
    provenance: Provenance, ancestors: Sequence[cst.CSTNode], name: cst.Name, frame: Frame
) -> cst.For | None:
    """``sigma_down`` of ``sigma_down, sigma_up = get_ancestral_step(sigmas[i], sigmas[i +
    1])`` in k-diffusion's ancestral samplers (``if sigma_down == 0:``): every binding that
    reaches ``name`` is an assignment in the own body of the schedule's loop around it whose
    value reads an element of the schedule (arithmetic or a helper's result: a tensor on the
    schedule's device) and converts nothing to a host number (``float(sigmas[i])``)."""
    reaching = provenance.bindings(frame).reaching_bindings(name)
    loop: cst.For | None = None
    for binding in reaching:
        statement = binding.statement
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            statement = statement.body[0]
        if not isinstance(statement, cst.Assign) or _converts(statement.value):
            return None
        elements = [e for e in _subscripts(statement.value) if isinstance(e.value, cst.Name)]
        found = next(
            (
                f
                for e in elements
                if (f := schedule_loop(provenance, ancestors, e, frame)) is not None
            ),
            None,
        )
        if found is None or (loop is not None and found is not loop):
            return None
        loop = found
    return loop


def _converts(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Call):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        if name in _HOST_CONVERSIONS:
            return True
    return any(_converts(child) for child in node.children)


def _subscripts(node: cst.CSTNode) -> list[cst.Subscript]:
    """The subscripts whose values flow into ``node``'s value: not those in the test of a
    conditional expression (``gamma = ... if s_tmin <= sigmas[i] <= s_tmax else 0.`` chooses
    between host numbers), nor in a subscript's index."""
    if isinstance(node, cst.IfExp):
        return _subscripts(node.body) + _subscripts(node.orelse)
    if isinstance(node, cst.Subscript):
        return [node, *_subscripts(node.value)]
    found: list[cst.Subscript] = []
    for child in node.children:
        found.extend(_subscripts(child))
    return found


def _bare_parameter(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """A parameter the function never rebinds, with no annotation or a tensor's (a list or a
    float annotation says it is host data)."""
    if not isinstance(frame.function, cst.FunctionDef):
        return False
    bindings = provenance.bindings(frame)
    if not bindings.is_parameter(name) or bindings.of(name.value).count(None) != 1:
        return False
    annotation = unchanged_parameter_annotation(provenance, name, frame)
    return annotation is None or tensor_annotation(provenance, annotation)


def _names(node: cst.BaseExpression) -> set[str]:
    """The bare names ``node`` reads (``i`` of ``i + 1``)."""
    if isinstance(node, cst.Name):
        return {node.value}
    found: set[str] = set()
    for child in node.children:
        if isinstance(child, cst.BaseExpression):
            found |= _names(child)
    return found


def _range_of_steps(it: cst.BaseExpression) -> bool:
    """``range(...)``, ``trange(...)``, ``tqdm(range(...))`` (also through a module:
    ``tqdm.trange``, ``tqdm.auto.tqdm``)."""
    if not isinstance(it, cst.Call):
        return False
    func = it.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    if name in _RANGE_CALLS:
        return True
    return name == "tqdm" and bool(it.args) and _range_of_steps(it.args[0].value)


def _drives_model(provenance: Provenance, loop: cst.For, schedule: str, frame: Frame) -> bool:
    """Whether the loop's own body calls the model with an argument that combines an element
    of ``schedule`` (directly, or a name the body binds from one) with a tensor."""
    finder = _ScheduleUses(schedule)
    visit_read_only(loop.body, finder)
    for call in finder.model_calls:
        values = [arg.value for arg in call.args]
        for value in values:
            if _combines(provenance, value, schedule, finder.derived, frame):
                return True  # ``model(x, sigmas[i] * s_in)``
            if _element(value, schedule, finder.derived) and any(
                other is not value and _tensor(provenance, other, frame) for other in values
            ):
                return True  # ``model(x_2 * c_in, sigmas[i + 1])``
    return False


def _element(node: cst.BaseExpression, schedule: str, derived: set[str]) -> bool:
    """The schedule's element itself, or a name the loop's body bound from one."""
    if isinstance(node, cst.Subscript):
        return isinstance(node.value, cst.Name) and node.value.value == schedule
    return isinstance(node, cst.Name) and node.value in derived


def _tensor(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """A name surely a tensor, or arithmetic holding one (``x_2 * c_in``)."""
    if isinstance(node, cst.BinaryOperation):
        return _tensor(provenance, node.left, frame) or _tensor(provenance, node.right, frame)
    return (
        isinstance(node, (cst.Name, cst.Attribute))
        and tensor_evidence(provenance, node, frame) is not None
    )


def _combines(
    provenance: Provenance,
    node: cst.BaseExpression,
    schedule: str,
    derived: set[str],
    frame: Frame,
) -> bool:
    """``sigmas[i] * s_in``, ``sigma_hat * s_in``: arithmetic of the schedule's element (or a
    name derived from one) with a name that is surely a tensor."""
    if not isinstance(node, cst.BinaryOperation):
        return False
    sides = (node.left, node.right)
    if not any(_reads_schedule(side, schedule, derived) for side in sides):
        return False
    return any(
        not _reads_schedule(side, schedule, derived) and _tensor(provenance, side, frame)
        for side in sides
    )


def _reads_schedule(node: cst.BaseExpression, schedule: str, derived: set[str]) -> bool:
    if isinstance(node, cst.Subscript):
        return isinstance(node.value, cst.Name) and node.value.value == schedule
    if isinstance(node, cst.Name):
        return node.value in derived
    return any(
        _reads_schedule(child, schedule, derived)
        for child in node.children
        if isinstance(child, cst.BaseExpression)
    )


class _ScheduleUses(OwnLoopBodyVisitor):
    """The model calls of a loop's own body, and the names it binds from an element of the
    schedule (``sigma_hat = sigmas[i] * (gamma + 1)``)."""

    def __init__(self, schedule: str) -> None:
        self.schedule = schedule
        self.derived: set[str] = set()
        self.model_calls: list[cst.Call] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if _reads_schedule(node.value, self.schedule, self.derived):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.derived.add(target.target.value)

    def visit_Call(self, node: cst.Call) -> None:
        if model_call(node):
            self.model_calls.append(node)


# The reads of a schedule element judged here: a test (``if sigmas[i + 1] == 0:``) and a
# read of its value (``sigmas[i].item()``, ``float(sigmas[i])``).
_KINDS = frozenset({"test", "read"})


def schedule_root(
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    tensor: cst.BaseExpression,
    frame: Frame,
    kind: str,
) -> cst.BaseExpression | None:
    """The schedule (``sigmas``) whose element ``tensor`` is, for a read of ``kind`` HTD202
    judges with the device unknown; None when ``tensor`` is no step schedule's element."""
    if kind not in _KINDS or schedule_loop(provenance, ancestors, tensor, frame) is None:
        return None
    assert isinstance(tensor, (cst.Subscript, cst.Name))
    return tensor.value if isinstance(tensor, cst.Subscript) else tensor


def schedule_reason(
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    tensor: cst.BaseExpression,
    loop: cst.For,
) -> str | None:
    """Why the read of the schedule element ``tensor`` runs once per step of ``loop``."""
    frame = provenance.current_frame()
    return SCHEDULE_REASON if schedule_loop(provenance, ancestors, tensor, frame) is loop else None

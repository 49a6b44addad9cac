"""Methods of a class, or of its bases anywhere in the project, that run a backward pass.

An agent's per-update method loops over its updates and leaves the backward pass and the
optimizer step to a helper of its base class::

    class AgentTD3(AgentDDPG):                             # AgentTD3.py
        def update_net(self, buffer):
            for update_c in range(update_times):
                obj_critic, state = self.get_obj_critic(buffer, self.batch_size)
                obj_critics += obj_critic.item()           # waits for the last update
                self.optimizer_update(self.cri_optimizer, obj_critic)

    class AgentBase:                                       # AgentBase.py
        def optimizer_update(self, optimizer, objective):
            optimizer.zero_grad()
            objective.backward()
            optimizer.step()

The helper's name says no backward (:func:`~h2dlint.analysis.backward_calls.backward_helper`
reads names only), but its body runs one on the argument it is given: the loop is a training
loop whose every iteration runs device work, and what it hands the helper is a loss
(ElegantRL 0.3.6's TD3, SAC, DDPG, PPO, A2C and DQN agents read the loss so once per update).
Only ``self.<method>(...)`` is followed: a method of the caller's class or, failing that, of
its bases (a class of the same module, or one its imports name in the project), a few levels
up. A method that only calls other helpers, or runs its backward in a loop of its own (a
per-task backward, not the step), is not taken for one.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.cross_module import resolve
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.names import names_in
from h2dlint.context import SharedKey
from h2dlint.walk import OwnScopeVisitor, visit_read_only

# Base classes followed up from the caller's class.
MAX_DEPTH = 4

_ANSWERS: SharedKey[dict[tuple[cst.ClassDef, str], int | None]] = SharedKey("backward methods")


def backward_argument(provenance: FactSource, cls: cst.ClassDef, name: str) -> int | None:
    """For ``self.<name>(...)`` in a method of ``cls``: when the method it runs does a
    backward pass in its own body (not in a loop of its own), the position among the call's
    positional arguments of the parameter it backpropagates (``objective.backward()``,
    ``scaler.scale(objective).backward()``), or -1 when it backpropagates something else;
    None when it runs none, or the method is not known."""
    answers = provenance.context.shared(_ANSWERS, dict)
    key = (cls, name)
    if key not in answers:
        found = _method(provenance, cls, name, 0)
        answers[key] = _backward_position(found) if found is not None else None
    return answers[key]


def _method(
    provenance: FactSource, cls: cst.ClassDef, name: str, depth: int
) -> cst.FunctionDef | None:
    """The method ``self.<name>`` of an object of ``cls`` runs: its own, else a base's."""
    own = provenance.index.methods.get(cls, {}).get(name)
    if own is not None or depth >= MAX_DEPTH:
        return own
    for base in cls.bases:
        if base.keyword is not None:
            continue
        value = base.value
        if isinstance(value, cst.Name) and value.value in provenance.index.classes:
            found = _method(provenance, provenance.index.classes[value.value], name, depth + 1)
        else:
            found = _imported_method(provenance, value, name, depth)
        if found is not None:
            return found
    return None


def _imported_method(
    provenance: FactSource, base: cst.BaseExpression, name: str, depth: int
) -> cst.FunctionDef | None:
    qualified = provenance.qualify(base)
    if qualified is None or provenance.project is None:
        return None
    resolved = resolve(provenance, provenance.project, qualified)
    if resolved is None or not isinstance(resolved[1], cst.ClassDef):
        return None
    return _method(resolved[0], resolved[1], name, depth + 1)


class _Backwards(OwnScopeVisitor):
    """The receivers of ``<x>.backward(...)`` calls of a function's own body, and whether one
    runs in a loop of the body."""

    def __init__(self) -> None:
        self.receivers: list[cst.BaseExpression] = []
        self.in_loop = False
        self._depth = 0

    def visit_For(self, node: cst.For) -> None:
        self._depth += 1

    def leave_For(self, original_node: cst.For) -> None:
        self._depth -= 1

    def visit_While(self, node: cst.While) -> None:
        self._depth += 1

    def leave_While(self, original_node: cst.While) -> None:
        self._depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            self.receivers.append(func.value)
            self.in_loop = self.in_loop or self._depth > 0


def _backward_position(method: cst.FunctionDef) -> int | None:
    backwards = _Backwards()
    visit_read_only(method.body, backwards)
    if not backwards.receivers or backwards.in_loop:
        return None
    params = [p.name.value for p in method.params.params]
    if not params:
        return None  # not a method of an object (``self`` first)
    positional = params[1:]
    for receiver in backwards.receivers:
        names = names_in(receiver)  # not an attribute's own name: ``self.loss`` is no ``loss``
        for position, param in enumerate(positional):
            if param in names:
                return position
    return -1


_LOSSES: SharedKey[frozenset[str]] = SharedKey("losses handed to backward methods")


class _SelfCalls(cst.CSTVisitor):
    def __init__(self, self_name: str) -> None:
        self.self_name = self_name
        self.calls: list[tuple[str, cst.Call]] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == self.self_name
            and node.args
        ):
            self.calls.append((func.attr.value, node))


def backpropagated_names(provenance: FactSource, frame: Frame) -> frozenset[str]:
    """The names ``frame``'s method binds once and hands to a method of its class (or a
    base's) as the loss that method backpropagates (``self.optimizer_update(optimizer,
    obj_critic)``): they are tensors (:func:`backward_argument`)."""
    function, cls, self_name = frame.function, frame.cls, frame.self_name
    if not isinstance(function, cst.FunctionDef) or cls is None or self_name is None:
        return frozenset()

    def build() -> frozenset[str]:
        calls = _SelfCalls(self_name)
        visit_read_only(function.body, calls)
        bindings = provenance.bindings(frame)
        found: set[str] = set()
        for name, call in calls.calls:
            position = backward_argument(provenance, cls, name)
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if position is None or not 0 <= position < len(positional):
                continue
            value = positional[position].value
            if isinstance(value, cst.Name) and len(bindings.of(value.value)) == 1:
                found.add(value.value)
        return frozenset(found)

    return provenance.context.shared(_LOSSES, build, function)

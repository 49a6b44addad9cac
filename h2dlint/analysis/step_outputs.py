"""Values of the mappings a host simulator's step returns are host data.

An environment whose ``step`` is handed a numpy array (``envs.step(actions.cpu().numpy())``,
``real_actions.reshape(shape)`` of such an array: :mod:`h2dlint.analysis.step_handoffs`) runs on
the host, Gym's way, and answers with numpy observations and Python ``info`` dicts. A loop over
the values of a mapping reached from what that step returned (``for k, v in
info["final_obs"][env].items()``, ``for v in obs.values()``) binds host arrays, so
``torch.as_tensor(v, device=dev)`` in it copies each one to the device on its own (SheepRL 0.6.1's
PPO and A2C rollouts copied the final observations of truncated episodes that way, one copy per
environment and key; 0.7.0 stacks them in numpy and copies once per key).

Only mapping values bound by a loop count: an environment's whole observation (``obs`` itself)
is the step's one input to the model and is copied once per step by design; a GPU simulator
(Isaac Gym, ManiSkill) is handed tensors, not numpy arrays, and is never matched.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance

# A mapping's methods whose loop binds its values.
VALUE_METHODS = frozenset({"items", "values"})


def simulator_mapping_value(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``node`` is a name every binding of which that reaches it is a loop over the
    values of a mapping reached from a host simulator's step outputs (``v`` of ``for k, v in
    info["final_obs"][i].items()``, ``info`` unpacked from ``envs.step(actions.numpy())``)."""
    if not isinstance(node, cst.Name):
        return False
    reaching = provenance.bindings(frame).reaching_bindings(node)
    if not reaching:
        return False
    for binding in reaching:
        loop = binding.statement
        mapping = _mapping_of(loop, node.value) if isinstance(loop, cst.For) else None
        root = _root_name(mapping) if mapping is not None else None
        if root is None or not _step_output(provenance, root, frame):
            return False
    return True


def _mapping_of(loop: cst.For, name: str) -> cst.BaseExpression | None:
    """``X`` when ``loop`` binds ``name`` to the values of ``X``: ``for k, name in X.items()``
    or ``for name in X.values()``."""
    iterable = loop.iter
    if not (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Attribute)
        and iterable.func.attr.value in VALUE_METHODS
        and not iterable.args
    ):
        return None
    target = loop.target
    bound: cst.BaseExpression
    if iterable.func.attr.value == "values":
        bound = target
    elif isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
        bound = target.elements[1].value
    else:
        return None
    return iterable.func.value if isinstance(bound, cst.Name) and bound.value == name else None


def _root_name(node: cst.BaseExpression) -> cst.Name | None:
    """The name an element or attribute chain starts from: ``info`` of ``info["a"][i]``."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def _step_output(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether every binding of ``name`` that reaches it is an assignment (plain or unpacked)
    of a host simulator's step call."""
    reaching = provenance.bindings(frame).reaching_bindings(name)
    if not reaching:
        return False
    for binding in reaching:
        line = binding.statement
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return False
        assign = line.body[0]
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
            return False
        if not host_simulator_step(provenance, assign.value, frame):
            return False
    return True


def host_simulator_step(provenance: Provenance, value: cst.BaseExpression, frame: Frame) -> bool:
    """``envs.step(a)`` of another object (not ``self``) handed a numpy array ``a``."""
    if not (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "step"
    ):
        return False
    receiver = value.func.value
    if isinstance(receiver, cst.Name) and receiver.value == "self":
        return False
    return any(
        arg.keyword is None and provenance.is_numpy_array(arg.value, frame) for arg in value.args
    )

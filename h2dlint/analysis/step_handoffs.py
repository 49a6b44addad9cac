"""Whether a function hands a numpy array to a simulator: another object's ``step`` or
``step_async`` (Gym's and Stable-Baselines3's ``VecEnv`` API). The simulator runs on the host and
needs the action now, so the device-to-host copy that made the array cannot be deferred or
overlapped. Asked for an environment's own ``step`` (:mod:`h2dlint.analysis.host_inputs`, its
action input) and for any other function (:mod:`h2dlint.analysis.env_steps`: rollout loops,
vectorised wrappers, an episode's ``while`` loop).
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.names import calls_in
from h2dlint.analysis.provenance import Provenance

# The calls that hand an action to an environment (Gym's ``step``, the vectorised ``step_async``).
ENV_STEP_CALLS = frozenset({"step", "step_async"})


def hands_to_step(
    provenance: Provenance, numpy: cst.Call, function: cst.FunctionDef, frame: Frame
) -> bool:
    """Whether ``function`` hands the array ``numpy`` (a ``.numpy()`` call) to another object's
    ``step``/``step_async``: the array itself, a method chain on it (``.reshape(shape)``), or a
    name every binding of which that reaches the call is such an array (one per branch: ``if
    continuous: a = ...numpy() else: a = ...numpy()``), and one of them this one.
    ``self.step(...)`` is the object's own step, no simulator."""
    bindings = provenance.bindings(frame)
    for call in calls_in(function):
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ENV_STEP_CALLS):
            continue
        if isinstance(func.value, cst.Name) and func.value.value == "self":
            continue
        for arg in call.args:
            root = _chain_root(arg.value)
            if root is numpy:
                return True
            if not isinstance(root, cst.Name):
                continue
            values = [b.value for b in bindings.reaching_bindings(root)]
            arrays = [v for v in values if v is not None and _numpy_array(v)]
            if (
                arrays
                and len(arrays) == len(values)
                and any(_chain_root(v) is numpy for v in arrays)
            ):
                return True
    return False


def _chain_root(node: cst.BaseExpression) -> cst.BaseExpression:
    """What a method chain is called on, down to a ``.numpy()`` call or a plain expression:
    ``a.cpu().numpy()`` for ``a.cpu().numpy().reshape(s).astype(f)``; ``x`` for ``x.reshape(s)``."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value == "numpy":
            return node
        node = node.func.value
    return node


def _numpy_array(value: cst.BaseExpression) -> bool:
    """Whether ``value`` is a ``.numpy()`` call, or a method chain on one."""
    root = _chain_root(value)
    return (
        isinstance(root, cst.Call)
        and isinstance(root.func, cst.Attribute)
        and root.func.attr.value == "numpy"
    )

"""Whether a host copy's numpy array is handed, in the function that makes it, to an
environment's step: ``envs.step(actions.cpu().numpy())``, ``real_actions = torch.stack(actions,
-1).cpu().numpy()`` then ``envs.step(real_actions.reshape(shape))``, or a vectorised wrapper's
``step_async(self, actions)`` that hands ``actions.cpu().numpy()`` to ``self.venv.step_async``
(Stable-Baselines3's ``VecEnv`` API, copied by CleanRL and most PPO code). The simulator runs on
the host and needs the action now: the copy is the step's input, nothing can overlap it, and the
advice to copy it asynchronously and wait later does not apply (session 41: CleanRL's twelve
``VecPyTorch.step_async`` copies, SheepRL's rollout loops). HTD202 asks this for its MEDIUM
copies, beside an environment's own ``step`` (:mod:`h2dlint.analysis.host_inputs`); HTD201 for
the copy a ``while`` loop makes on every iteration (an episode's ``while not done:`` loop: the
action is the simulator's input, not loop state that could stay on the device).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_inputs import numpy_call
from h2dlint.analysis.names import calls_in
from h2dlint.analysis.provenance import Provenance

# The calls that hand an action to an environment (Gym's ``step``, the vectorised ``step_async``).
ENV_STEP_CALLS = frozenset({"step", "step_async"})
# An environment's own step methods, which :func:`~h2dlint.analysis.host_inputs.
# input_handed_to_numpy` judges: there only the action the step is given is the simulator's
# input; a value the step computes from it on the device (a policy inside the environment)
# stays reported.
OWN_ENV_STEPS = frozenset({"step", "_step"})


def handed_to_environment(
    provenance: Provenance, ancestors: Sequence[cst.CSTNode], frame: Frame
) -> bool:
    """Whether the ``.cpu()`` copy at the end of ``ancestors`` becomes a numpy array (``.numpy()``
    right after it) that its function hands to another object's ``step``/``step_async``: the
    array itself, a method chain on it (``.reshape(shape)``), or a name every binding of which
    that reaches the call is such an array (one per branch: ``if continuous: a = ...numpy()
    else: a = ...numpy()``), and one of them this copy. ``self.step(...)`` is the object's own
    step, no simulator; an environment's own ``step``/``_step`` is judged by its input alone."""
    numpy = numpy_call(ancestors)
    function = frame.function
    if numpy is None or not isinstance(function, cst.FunctionDef):
        return False
    if function.name.value in OWN_ENV_STEPS:
        return False  # an environment's own step: only its action input is the simulator's
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


def loop_copy_handed_to_environment(
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    loop: cst.CSTNode,
    copy: cst.CSTNode,
    frame: Frame,
) -> bool:
    """:func:`handed_to_environment` for ``copy``, a node inside ``loop`` (whose own ancestors
    are ``ancestors``): the copy a ``while`` loop makes on every iteration."""
    path = _path(loop, copy)
    return path is not None and handed_to_environment(provenance, [*ancestors, *path], frame)


def _path(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from ``root`` down to ``target``'s parent, root first; None when ``target``
    is not under ``root``."""
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(root, [])]
    while stack:
        node, above = stack.pop()
        if node is target:
            return above
        below = [*above, node]
        stack.extend((child, below) for child in node.children)
    return None


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

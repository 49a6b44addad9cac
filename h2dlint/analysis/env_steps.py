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
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.step_handoffs import hands_to_step

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
    return hands_to_step(provenance, numpy, function, frame)


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

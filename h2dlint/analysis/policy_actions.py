"""A policy's action copied to the host in the method that chooses it: ``get_action()`` of an
RL algorithm handing ``action.cpu().numpy()`` back to the rollout loop that steps a host
environment (HTD202, session 44).

AgileRL's algorithms (``PPO.get_action``, ``DDPG.get_action``, ``MADDPG.get_action``) return
the chosen action as a numpy array or a host tensor: the caller passes it straight to
``env.step``, and a simulator on the host needs it now, so the copy is the step's input,
nothing can overlap it, and copying it asynchronously to wait later does not help. The same
hand-off, made where the action is given to the environment, is
:mod:`h2dlint.analysis.env_steps`'s (CleanRL's ``step_async``); d3rlpy's ``predict`` that
declares a numpy return is :mod:`h2dlint.analysis.numpy_outputs`'s. Here the method's name says
it chooses an action (a word ``action``/``actions`` of it, or ``act``) and the copied
expression reads a variable named for the action (its last word ``action`` or ``actions``:
``action``, ``scaled_actions``, ``self.actor.scale_action(action)``; not ``action_logprob``).

What the same method copies besides the action stays reported: PPO's ``log_prob``,
``entropy`` and ``values`` copied to numpy every rollout step are stored for the update that
runs on the device again (labelled true), and so does anything read with ``.item()`` or as a
test.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.names import names_in

_ACTION_WORDS = frozenset({"action", "actions"})


def _words(name: str) -> set[str]:
    return {word for word in name.lower().split("_") if word}


def action_copy(function: cst.FunctionDef, copy: cst.Call | None) -> bool:
    """Whether ``copy`` (a ``.cpu()``/``.to("cpu")``/``.tolist()`` call in ``function``) copies
    the action an action-choosing method returns to its rollout loop (see the module)."""
    name = function.name.value
    if name != "act" and _ACTION_WORDS.isdisjoint(_words(name)):
        return False
    if copy is None or not isinstance(copy.func, cst.Attribute):
        return False
    return any(_action_name(read) for read in names_in(copy.func.value))


def _action_name(name: str) -> bool:
    """Whether a variable is named for an action: its last word (``action``, ``actions``,
    ``scaled_action``), not a value that comes with it (``action_logprob``)."""
    return name.lower().rsplit("_", 1)[-1] in _ACTION_WORDS

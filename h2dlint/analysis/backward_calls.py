"""Calls that run a backward pass by their name, and the loss they are given.

A training loop often runs its backward pass in a helper (``self._backward_pass(loss)``,
a pipeline schedule's ``backward_step(...)``), not through ``loss.backward()`` in its own
body: agilerl 2.50's DPO and SFT loops read ``loss.item()`` and two rewards per micro-batch
after ``self._backward_pass(loss)`` (2.58 keeps them on the device and reads them once). Such
a call is the loop's global device work (:mod:`h2dlint.analysis.device_loops`), and the loss
it is given is a tensor (:mod:`h2dlint.analysis.item_writes`), as ``loss.backward()`` says.
"""

from __future__ import annotations

import libcst as cst

# First words of a helper's name before ``backward`` that say it runs one.
_RUNNING_WORDS = frozenset({"do", "run", "perform", "compute", "forward"})
# Second words after ``backward`` that speak of an API's history, not of a backward pass
# (``backward_compatible_load(state)``, transformers'
# ``_backward_compatibility_gradient_checkpointing()``).
_HISTORY_WORDS = frozenset({"compat", "compatible", "compatibility"})
# Last words of a name that looks a number up for a backward pass rather than running one
# (OLMo-core 3.0.0's pipeline schedule builder calls ``backward_stage_index(op)`` per slot of
# the schedule it builds once, ``pipeline_schedule.py:1882``; ``backward_order``).
_LOOKUP_LAST_WORDS = frozenset(
    {"index", "indices", "idx", "id", "ids", "count", "counts", "num", "order", "rank", "size"}
)


def backward_helper(name: str) -> bool:
    """Whether a function or method ``name`` runs a backward pass by its name: its words start
    with ``backward`` (``_backward_pass``, ``backward_step``: the helper a training loop calls
    with its loss, agilerl 2.50's DPO and SFT loops; a pipeline schedule's ``backward_step``), or
    a running word then ``backward`` (``forward_backward_func``, ``do_backward``). Not
    ``backward`` itself (the caller's own case), hooks, ``save_for_backward``, names of an
    API's history (``backward_compatible_load``), nor a lookup named for what it returns
    (``backward_stage_index``)."""
    words = name.strip("_").lower().split("_")
    if name == "backward" or "hook" in words or "hooks" in words or len(words) < 2:
        return False
    if words[1] in _HISTORY_WORDS or words[-1] in _LOOKUP_LAST_WORDS:
        return False
    return words[0] == "backward" or (words[0] in _RUNNING_WORDS and words[1] == "backward")


def backward_loss(node: cst.Call) -> str | None:
    """The name ``node`` hands to a backward pass as its loss: the first positional argument
    of a backward helper (:func:`backward_helper`) or of an engine's ``backward``
    (``accelerator.backward(loss)``, ``model_engine.backward(loss)``); None otherwise."""
    func = node.func
    if isinstance(func, cst.Attribute):
        name = func.attr.value
        runs = name == "backward" or backward_helper(name)
    else:
        name = func.value if isinstance(func, cst.Name) else ""
        runs = isinstance(func, cst.Name) and backward_helper(name)
    if runs and _runs_forward(name):
        # A helper that runs the forward pass too (``self._forward_backward_step(i, batch)``,
        # Megatron's ``forward_backward_func(forward_step_func, data_iterator, ...)``) is handed
        # the step's inputs and makes the loss itself: its first argument is no loss (NeMo
        # AutoModel 0.7.0's recipes pass the micro-batch counter ``i``: session 49, triage49a).
        return None
    first = node.args[0] if node.args else None
    if not runs or first is None or first.star or first.keyword is not None:
        return None
    return first.value.value if isinstance(first.value, cst.Name) else None


def _runs_forward(name: str) -> bool:
    """Whether a backward helper named ``name`` runs the forward pass first: ``forward`` before
    ``backward`` among its words (``forward_backward_step``, ``forward_backward_func``)."""
    words = name.strip("_").lower().split("_")
    return (
        "forward" in words
        and "backward" in words
        and words.index("forward") < words.index("backward")
    )


def backward_pass_name(name: str) -> bool:
    """Whether a function named ``name`` runs (part of) a backward pass, so once per training
    step: a backward helper's name (:func:`backward_helper`), or ``backward`` as its last word,
    as ``forward`` last names a forward (``pc_backward``, PCGrad's per-step backward of every
    task's loss; ``fuser_backward``, an operation's backward in a fused pipeline; ``_backward``).
    Not ``backward`` itself (an entry point by its own name), hooks (``register_backward_hook``),
    nor a name of an API's history (``backward_compatible``)."""
    words = name.strip("_").lower().split("_")
    if name == "backward" or "hook" in words or "hooks" in words:
        return False
    return backward_helper(name) or words[-1] == "backward"

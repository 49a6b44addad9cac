"""Functions that drive a loop of model steps, and their code outside that loop (HTD107).

A generation or sampling function (``_beam_search``, ``generate_speech``, a sampler's
``sample``) holds the loop of decoding or denoising steps: each iteration calls the model
(``self(**model_inputs)``, ``model.decoder(...)``, ``self.model(...)``). What it does outside
that loop before it first calls the model (making the start index, a beam-trace counter, the
first position) runs once per request, before the steps, when nothing is queued on the device
yet, as a pipeline's set-up does (``loop_body.pipeline_code``). ``generate`` itself is the
request's entry: the loop of steps runs in what it calls (``self._sample(...)``), and its own
code is that set-up. A copy after the function has called the model (after the prefill, after
an encoder, after one token's first forward) waits for that work, and stays reported.

Only code outside loops of the function counts, and only where no hot path reaches it: the
steps themselves stay per step.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

# Names of what a loop of steps calls each iteration: the model, or one of its parts.
_MODEL_WORDS = frozenset({"model", "transformer", "unet", "denoiser", "decoder"})
# Request entry points of a generation API: the loop of steps runs in what they call.
_ENTRY_NAMES = frozenset({"generate"})


def request_setup(ancestors: Sequence[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` (below ``ancestors``, root first) is outside every loop of its
    function, comes before the function's first call of the model, and that function is a
    generation entry (``generate``) or holds a loop whose body calls the model (see the
    module's docs)."""
    for parent in reversed(ancestors):
        if isinstance(parent, (cst.For, cst.While, cst.Lambda)):
            return False
        if isinstance(parent, cst.FunctionDef):
            driver = parent.name.value in _ENTRY_NAMES or drives_steps(parent)
            return driver and not _model_called_before(parent, node)
    return False


def _model_called_before(function: cst.FunctionDef, node: cst.CSTNode) -> bool:
    """Whether ``function`` calls the model before ``node``, in the order of its code (a
    prefill, an encoder): the device then has work queued that a copy would wait for."""
    finder = _CallsBefore(node)
    visit_read_only(function.body, finder)
    return finder.called


def drives_steps(function: cst.FunctionDef, callees: frozenset[str] = frozenset()) -> bool:
    """Whether ``function``'s own body (not a nested function's) holds a ``for``/``while``
    loop whose body calls the model, or one of ``callees`` by its bare name (a denoiser
    handed in as a parameter)."""
    finder = _StepLoops(callees)
    visit_read_only(function.body, finder)
    return finder.found


class _CallsBefore(cst.CSTVisitor):
    def __init__(self, node: cst.CSTNode) -> None:
        self.node = node
        self.reached = False
        self.called = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.node:
            self.reached = True
        if self.reached or isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return False
        if isinstance(node, cst.Call) and model_call(node):
            self.called = True
        return True


class _StepLoops(cst.CSTVisitor):
    def __init__(self, callees: frozenset[str]) -> None:
        self.callees = callees
        self.loops = 0
        self.found = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested function runs when it is called

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_For(self, node: cst.For) -> None:
        self.loops += 1

    def leave_For(self, original_node: cst.For) -> None:
        self.loops -= 1

    def visit_While(self, node: cst.While) -> None:
        self.loops += 1

    def leave_While(self, original_node: cst.While) -> None:
        self.loops -= 1

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.loops and (
            model_call(node) or (isinstance(func, cst.Name) and func.value in self.callees)
        ):
            self.found = True


def model_call(call: cst.Call) -> bool:
    """``self(...)``, ``model(...)``, ``draft_model(...)``, ``model.decoder.prenet(...)``,
    ``self.model(...)``, ``self.unet(...)``, ``self.forward(...)``: a call of the model or a
    part of it."""
    dotted = dotted_name(call.func)
    return dotted is not None and model_receiver(dotted.split("."))


def model_receiver(parts: Sequence[str]) -> bool:
    """Whether the dotted name ``parts`` names the model or a part of it (``model``,
    ``self``, ``self.model``, ``model.decoder.prenet``, ``self.forward``)."""
    if not parts:
        return False
    root, *rest = parts
    if root != "self":
        return _model_word(root)
    return not rest or _model_word(rest[0]) or rest == ["forward"]


def _model_word(name: str) -> bool:
    words = [w for w in name.lower().split("_") if w]
    return bool(words) and words[-1] in _MODEL_WORDS

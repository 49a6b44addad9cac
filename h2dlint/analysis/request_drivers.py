"""Entry points that run once per request around a loop of model steps (HTD201, HTD202 hot
paths): a pipeline's ``__call__`` (moved here from ``hot_paths.py``), and the drivers below.

``decode`` and ``sample`` are hot by name because an engine calls them once per decoding step.
The same names also name a whole run: a codec's ``decode(codes)`` that decodes chunk after
chunk (``for i in range(0, n, chunk): r = model.decode(codes[..., i:i + chunk])``), a
diffusion model's ``sample`` that holds the denoising loop (``for t in steps: x = model(x,
t)``), a diffusion ``...Sampler``'s ``forward(noise, fn, sigmas, num_steps)`` that calls the
denoiser it is given on each step. Such a function holds the loop of steps itself, so it runs
once per request: only the code in its loops runs per step (the steps), and what it does
before or after them (the schedule's first sigma, the decoded audio copied to the host for
loudness normalisation) runs once per request, when a sync stalls nothing that follows.

An engine's per-step ``decode``/``sample`` calls the model once, with no loop of its own around
the call, and a module's ``forward`` runs per step whatever it loops over (a training forward's
decoder loop): neither is a driver here.

A ``decode`` or ``sample`` that calls a model's generation entry (``model.generate(...)``,
``self.model.generate_samples_from_batch(...)``) runs at least one whole generation per call,
each with its own loop of steps, so it is no step either, and not even a driver whose loops are
per step: a training callback's ``sample(self, trainer, model, data_batch, ..., iteration)``
that draws samples every N iterations for a preview, looping over guidance scales, copies each
finished sample to the host to draw it (:func:`runs_generations`). It is hot only where a hot
caller calls it. The model is another object there (a parameter, ``self.model``): a generation
mixin's ``sample`` that calls its own ``self.generate(...)`` (petals 2.0.1) stays an entry, so
that the loop of steps in that ``generate``, hot only through it, stays hot.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.class_bases import class_and_base_names
from h2dlint.analysis.hot_names import PER_REQUEST_CLASS_WORDS
from h2dlint.analysis.step_drivers import drives_steps, model_receiver
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

# Entry names that are per step in an engine and a whole run where they hold the step loop.
_RUN_NAMES = frozenset({"decode", "sample"})
# Entry names of a diffusion sampler module: one call samples a whole trajectory.
_SAMPLER_ENTRIES = frozenset({"forward", "__call__"})


def pipeline_block(cls: cst.ClassDef) -> bool:
    """Whether ``cls`` is a block of a modular pipeline (its name or a base's says
    ``Blocks``) that is no loop block (its own name no ``Loop``)."""
    names = class_and_base_names(cls)
    return "Loop" not in cls.name.value and any("Blocks" in name for name in names)


def per_request_class(cls: cst.ClassDef) -> bool:
    """Whether ``cls``'s ``__call__`` runs once per request around a loop of steps (a
    pipeline: its name or a base's says so, and its own name no ``Loop``)."""
    names = class_and_base_names(cls)
    return "Loop" not in cls.name.value and any(
        word in name for name in names for word in PER_REQUEST_CLASS_WORDS
    )


def request_driver(function: cst.FunctionDef, cls: cst.ClassDef | None) -> bool:
    """Whether ``function`` (a hot entry point by name, a method of ``cls``) runs a whole
    request's loop of model steps itself (see the module's docs)."""
    name = function.name.value
    if name in _RUN_NAMES:
        return drives_steps(function)
    if name in _SAMPLER_ENTRIES and cls is not None and cls.name.value.endswith("Sampler"):
        return _calls_parameter_in_loop(function)
    return False


def _calls_parameter_in_loop(function: cst.FunctionDef) -> bool:
    """Whether a loop of ``function``'s own body calls one of its parameters (``fn(x,
    sigma=sigmas[i])``, ``model(x, t)``): the denoiser handed to a sampler."""
    params = function.params
    names = {
        p.name.value
        for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        if p.name.value not in {"self", "cls"}
    }
    return drives_steps(function, frozenset(names))


def runs_generations(function: cst.FunctionDef) -> bool:
    """Whether ``function`` is a ``decode``/``sample`` whose own body (not a nested function's)
    calls a model's generation entry (``model.generate(...)``, ``self.model.generate_x(...)``):
    each call runs whole generations (see the module's docs)."""
    if function.name.value not in _RUN_NAMES:
        return False
    finder = _GenerationCalls()
    visit_read_only(function.body, finder)
    return finder.found


class _GenerationCalls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested function runs when it is called

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        dotted = dotted_name(node.func)
        if dotted is None:
            return
        *receiver, method = dotted.split(".")
        if receiver == ["self"]:
            return  # a mixin's sample() alias of its own generate(): that loop must stay hot
        if (method == "generate" or method.startswith("generate_")) and model_receiver(receiver):
            self.found = True

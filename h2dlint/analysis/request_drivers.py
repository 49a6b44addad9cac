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

A diffusion sampler's ``sample`` may hand the loop to a method of its own class: CompVis'
``DDIMSampler.sample`` calls ``self.make_schedule(...)`` (the schedule's tables read back with
``alphas_cumprod.cpu()``) and then ``self.ddim_sampling(...)``, whose loop calls
``self.p_sample_ddim(...)``, which calls ``self.model.apply_model(...)``. A loop counts as a
loop of steps where it calls the model directly or through methods of the same class (two
calls deep: DPM-Solver's ``sample`` loop calls ``self.model_fn``, which calls
``self.noise_prediction_fn``, which calls ``self.model``). ``sample`` (or ``decode``) that holds
no such loop itself but calls, outside its loops, a method of its class that does
(:func:`step_delegates`) runs once per request too: both run only their loops per step, and
the set-up before (the schedule) runs once per request. The project index's chain of callers
(a sampler's ``sample`` called from an inpainting model's ``forward`` in another module) stops
there too: a call such a driver makes outside its loops is no step (:func:`setup_call`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.class_bases import class_and_base_names
from h2dlint.analysis.hot_names import PER_REQUEST_CLASS_WORDS
from h2dlint.analysis.once_guards import self_attribute
from h2dlint.analysis.step_drivers import drives_steps, model_call, model_receiver
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    from h2dlint.analysis.frames import ModuleIndex
    from h2dlint.project.caller_scans import Caller

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
    request's loop of model steps itself, or hands it to a method of ``cls``
    (:func:`step_delegates`; see the module's docs)."""
    name = function.name.value
    if name in _RUN_NAMES:
        return (
            drives_steps(function)
            or (cls is not None and _drives_through_methods(function, _methods(cls)))
            or bool(step_delegates(function, cls))
        )
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


# How many calls of the class's own methods a loop of steps may reach the model through.
_METHOD_DEPTH = 2


def step_delegates(function: cst.FunctionDef, cls: cst.ClassDef | None) -> list[cst.FunctionDef]:
    """The methods of ``cls`` with loops of their own that a ``sample``/``decode`` driving a
    request through its class's methods calls outside its loops (``self.ddim_sampling(...)``,
    DPM-Solver's ``self.dpm_solver_adaptive(...)``, whose ``while`` loop steps through local
    lambdas): only their loops run per step (see the module's docs). Empty for one that holds
    its loop of model calls itself (its callees outside the loop stay as they were)."""
    if cls is None or function.name.value not in _RUN_NAMES or drives_steps(function):
        return []
    methods = _methods(cls)
    finder = _SelfCalls(outside_loops=True)
    visit_read_only(function.body, finder)
    called = [methods[n] for n in dict.fromkeys(finder.names) if n in methods]
    looping = [m for m in called if m is not function and _has_loop(m)]
    if not _drives_through_methods(function, methods) and not any(
        drives_steps(m) or _drives_through_methods(m, methods) for m in looping
    ):
        return []
    return looping


def _has_loop(function: cst.FunctionDef) -> bool:
    finder = _SelfCalls(outside_loops=False)
    visit_read_only(function.body, finder)
    return finder.loops_seen


def _methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return {s.name.value: s for s in body if isinstance(s, cst.FunctionDef)}


def _drives_through_methods(function: cst.FunctionDef, methods: dict[str, cst.FunctionDef]) -> bool:
    """Whether a loop of ``function``'s own body calls a method of its class (``self.m(...)``)
    that calls the model, directly or through further methods (:data:`_METHOD_DEPTH` calls
    deep in all)."""
    finder = _SelfCalls(outside_loops=False)
    visit_read_only(function.body, finder)
    return any(
        _reaches_model(methods[name], methods, _METHOD_DEPTH - 1, {function})
        for name in finder.names
        if name in methods
    )


def _reaches_model(
    method: cst.FunctionDef,
    methods: dict[str, cst.FunctionDef],
    depth: int,
    seen: set[cst.FunctionDef],
) -> bool:
    if method in seen:
        return False
    seen.add(method)
    finder = _ModelCalls()
    visit_read_only(method.body, finder)
    if finder.found:
        return True
    return depth > 0 and any(
        _reaches_model(methods[name], methods, depth - 1, seen)
        for name in finder.self_calls
        if name in methods
    )


class _SelfCalls(cst.CSTVisitor):
    """The methods a function's own body calls as ``self.m(...)``, and the functions it calls
    by a bare name: inside its loops, or (with ``outside_loops``) outside them."""

    def __init__(self, outside_loops: bool) -> None:
        self.outside_loops = outside_loops
        self.loops = 0
        self.loops_seen = False
        self.names: list[str] = []  # ``self.m(...)``
        self.bare: list[str] = []  # ``f(...)``

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_For(self, node: cst.For) -> None:
        self.loops += 1
        self.loops_seen = True

    def leave_For(self, original_node: cst.For) -> None:
        self.loops -= 1

    def visit_While(self, node: cst.While) -> None:
        self.loops += 1
        self.loops_seen = True

    def leave_While(self, original_node: cst.While) -> None:
        self.loops -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if bool(self.loops) == self.outside_loops:
            return
        func = node.func
        if isinstance(func, cst.Attribute) and self_attribute(func):
            self.names.append(func.attr.value)
        elif isinstance(func, cst.Name):
            self.bare.append(func.value)


class _ModelCalls(cst.CSTVisitor):
    """Whether a method's own body calls the model (:func:`model_call`), and the methods it
    calls as ``self.m(...)``."""

    def __init__(self) -> None:
        self.found = False
        self.self_calls: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if model_call(node):
            self.found = True
        func = node.func
        if isinstance(func, cst.Attribute) and self_attribute(func):
            self.self_calls.append(func.attr.value)


def setup_call(
    index: ModuleIndex,
    drivers: Collection[cst.FunctionDef],
    module: str | None,
    caller: Caller,
    callee: str,
) -> bool:
    """Whether ``caller`` (found by the project index) is one of ``drivers``, the functions of
    this module that run once per request around their loop of steps, and calls ``callee`` (a
    qualified name) only outside its loops: set-up, once per request (``DDIMSampler.sample``
    calling ``self.make_schedule(...)``)."""
    if caller.module != module:
        return False
    if caller.cls is None:
        function = index.functions.get(caller.name)
    else:
        cls = index.classes.get(caller.cls)
        function = None if cls is None else index.methods.get(cls, {}).get(caller.name)
    if function is None or function not in drivers:
        return False
    finder = _SelfCalls(outside_loops=False)
    visit_read_only(function.body, finder)
    return callee.rpartition(".")[2] not in {*finder.names, *finder.bare}

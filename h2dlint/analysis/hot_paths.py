"""Hot paths: functions that run once per step or per request, where a host sync stalls every
iteration (HTD201, HTD202).

A function of a module is *hot* when:

- it is an entry point the framework calls per step or per request, by name
  (:data:`HOT_ENTRY_POINTS`): ``forward`` and ``__call__`` of a module, pipeline or sampler; the
  training and evaluation steps of trainers (``training_step``, ``train_step``, ``step``...);
  the per-batch methods of inference engines and schedulers (``execute_model``,
  ``prepare_inputs``, ``schedule``, ``update_from_output``, ``sample``, ``decode``); request
  handlers (``handle``, ``process_request``); ``build`` of an attention metadata builder
  (``...MetadataBuilder``) and functions named for per-step metadata (``init_forward_metadata``,
  ``build_attn_metadata``), which :mod:`h2dlint.analysis.once` does not take for initialisers; a
  metric's ``update`` (:mod:`h2dlint.analysis.metric_updates`);
- or it is configured hot (``[tool.h2dlint.analysis] hot-functions``);
- or a hot function of the same module calls it, directly or through other functions:
  ``self.<method>(...)``/``cls.<method>(...)`` of the caller's own class, and calls of a
  top-level function by its name. A call under a run-once guard (``if self.cache is None:``)
  does not count;
- or ``self.attr.m(...)`` of a hot method whose class assigns ``self.attr`` an instance of a
  class of the module (``self.batch = Batch(...)``);
- or, for a function or method a rule asks about, the project index (``h2dlint.project``) finds
  a caller that is hot by its name (or calls it from one more function that is): in another
  module by name, or anywhere through an object of the method's class
  (``self.drafter.propose(...)``). A cold caller (run once by its name, configured cold, a
  logger, a pipeline's per-request ``__call__``) ends the chain. Only the function asked about
  is looked up: what it calls in its module is not marked hot through it;
- or, asked the same way, a function of the project calls it inside a loop whose every iteration
  runs a step by name (:mod:`h2dlint.analysis.step_loops`: an engine's ``while True:`` loop
  around ``self.async_step()``).

A *per-request* entry point runs once per request around a loop of steps: ``__call__`` of a
pipeline (a class whose name or a base's says ``Pipeline``, such as diffusers'
``DiffusionPipeline`` and ``ModularPipelineBlocks``, unless its name says ``Loop``: the blocks
of a denoising loop run per step). In a block of a modular pipeline (a base named
``...Blocks``, not ``...Loop...``) only loops whose own body calls a model count (an
autoregressive decoding loop; not a loop over conditions or frames). Only the code in its
loops (``for``/``while`` bodies) runs per step, so only that code is hot, and only what it
calls from there; its prompt encoding, input checks and schedule set-up run once per request,
when nothing is queued on the device to stall. A host-in, host-out ``__call__`` (a class that is
no torch module and makes its input from host data, :mod:`h2dlint.analysis.host_io_requests`)
is judged the same way, except that a helper it calls outside its loops stays hot through it
when the helper has loops of its own that may run a model (comprehensions count as loops).

Run-once code (:mod:`h2dlint.analysis.once`: initialisers, setup, loaders, tests, memoised
functions), model surgery (``W.weight.data = ...``) and functions configured cold (``cold-
functions``) are never hot, nor is anything through them. ``generate`` is no entry point: it runs
once per request around a decoding loop whose steps (``forward``, ``sample``) are the hot ones. A
``decode`` or ``sample`` that holds the loop of model steps (a codec's chunked decode, a diffusion
sampler's run) or hands it to a method of its class, that method, and a diffusion ``...Sampler``'s
``forward`` looping over the denoiser it is given run once per request: only their loops are hot
(:mod:`h2dlint.analysis.request_drivers`).

Data preprocessing modules (``processing_*.py``, ``image_processing_*.py``,
``feature_extraction_*.py``, ``tokenization_*.py``...) run on the host before the model: none of
their functions is hot. Nor are the entry-point names of data-preparation classes (a
``...Tokenizer``'s ``decode``, a ``...Transform``'s or ``...Processor``'s ``__call__``), nor a
top-level function with an attention word annotated to return Python data
(``_apply_attention_mask(...) -> list[list[int]]``: it prepares prompts on the host).

A nested function (a closure, a local helper) is as hot as the function it is defined in (in
a per-request entry point: where one of its step loops defines or calls it); one its factory
returns or installs on an object is also hot by its own name
(:mod:`h2dlint.analysis.installed_closures`: a replacement attention ``forward(self, ...)``).
Configured names match a function's own name or its qualified name (``Class.method``), also as
``fnmatch`` globs (``*Attention.forward``, ``_step_*``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.closure_calls import called_in_loops
from h2dlint.analysis.closure_selves import calling_class
from h2dlint.analysis.data_transforms import dataset_built_class
from h2dlint.analysis.env_switches import debug_only, may_read_environment
from h2dlint.analysis.gpu_less_actors import may_hold_actor
from h2dlint.analysis.hook_registrations import registered_functions
from h2dlint.analysis.host_data import (
    PREPROCESSING_MODULES,
    host_pipeline_class,
    host_pipeline_classdef,
)
from h2dlint.analysis.host_io_requests import host_io_call, host_io_request_call
from h2dlint.analysis.host_only_modules import host_only_method
from h2dlint.analysis.hot_calls import SameModuleCalls, runs_model
from h2dlint.analysis.hot_names import (
    ATTENTION_TAIL,
    BUILDER_REASON,
    HOT_ENTRY_POINTS,
    LOOPS,
    METHOD_ONLY,
    PER_REQUEST_CLASS_WORDS,
    PER_REQUEST_REASON,
    diagnostic_name,
    logging_name,
    matches,
    name_reason,
    offline_class,
    returns_host_data,
    state_builder_reason,
    test_module,
)
from h2dlint.analysis.installed_closures import installed_closures
from h2dlint.analysis.memo_methods import parameter_rewrites
from h2dlint.analysis.metric_updates import metric_reason, metric_update_reason
from h2dlint.analysis.nested_functions import nested_functions
from h2dlint.analysis.once import RunOnce, once_name
from h2dlint.analysis.per_step_names import builder_class
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.request_drivers import (
    per_request_class,
    pipeline_block,
    request_driver,
    runs_generations,
    setup_call,
    step_delegates,
)
from h2dlint.analysis.step_loops import occasional_call, step_loop_reason
from h2dlint.analysis.text_returns import TEXT_ENTRY_POINTS, returns_text
from h2dlint.context import SharedKey
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    from h2dlint.context import FileContext


_HOT_PATHS: SharedKey[HotPaths] = SharedKey("hot paths")


class HotPaths:
    """Which functions of one file are hot (see the module docs). Computed once per file."""

    @classmethod
    def of(cls, context: FileContext) -> HotPaths:
        options = context.options
        return context.shared(
            _HOT_PATHS,
            lambda: cls(
                context,
                tuple(options.get("hot-functions", ())),
                tuple(options.get("cold-functions", ())),
            ),
        )

    def __init__(
        self,
        context: FileContext,
        hot_functions: Iterable[str] = (),
        cold_functions: Iterable[str] = (),
    ) -> None:
        self.context = context
        self.hot_functions = tuple(hot_functions)
        self.cold_functions = tuple(cold_functions)
        self.index = Provenance.of(context).index
        self.once = RunOnce.of(context)
        self._env_reads = may_read_environment(context.source)
        # A module named for debugging (``model_debugging_utils.py``) holds debugging aids.
        self._debug_module = "debug" in context.file_name
        self._reasons: dict[cst.FunctionDef, str] | None = None
        self._parents: dict[cst.FunctionDef, cst.FunctionDef] | None = None
        # Per-request entry points: only the code in their loops is hot.
        self._loops_only: set[cst.FunctionDef] = set()
        # Blocks of a modular pipeline: only their loops that run a model (an autoregressive
        # decoding loop); their other loops walk inputs once per request.
        self._model_loops_only: set[cst.FunctionDef] = set()
        self._model_loops: dict[cst.CSTNode, bool] = {}
        self._delegates: dict[cst.FunctionDef, list[cst.FunctionDef]] = {}  # step_delegates
        # Host-in, host-out ``__call__``s (:mod:`host_io_requests`): per request, but a helper
        # with loops of its own that they call stays hot through them.
        self._host_io: set[cst.FunctionDef] = set()
        # The project index's answers, for the functions asked about.
        self._asked: dict[cst.FunctionDef, str | None] = {}
        # could_be_hot's answers (a True may later turn out not hot: it only gates).
        self._maybe: dict[tuple[cst.FunctionDef, bool], bool] = {}
        self._top_level_functions: frozenset[cst.FunctionDef] | None = None
        self._cold_answers: dict[cst.FunctionDef, bool] = {}
        self._rewrites = parameter_rewrites(context.source)
        self._actors = may_hold_actor(context.source)

    # -- the answer ---------------------------------------------------------------------------
    def why_hot(self, function: cst.FunctionDef) -> str | None:
        """Why ``function`` runs per step or per request, in a few words for a message; None
        when it is not known to."""
        reasons = self.reasons
        if function in reasons:
            return reasons[function]
        parent = self.parents.get(function)
        if parent is not None and not self._cold(function):
            return self.why_hot(parent)  # a closure or local helper of a hot function
        if function not in self._asked:
            # Asked only for a function a rule asks about: the project's callers of every
            # function of every file would cost a scan each.
            self._asked[function] = (
                self._project_reason(self.qualified(function))
                if self._indexed(function)
                and not self._cold(function)
                and not self._host_pipeline_method(function)
                else None
            )
        return self._asked[function]

    def could_be_hot(self, function: cst.FunctionDef, ask_project: bool = True) -> bool:
        """False only when ``function`` is surely not hot: a gate before costlier questions
        (where a tensor lives) and :meth:`why_hot`. A method not hot by its own file's facts
        can be hot only through a caller elsewhere (``self.drafter.propose(...)`` in a
        runner's step): with ``ask_project`` False that question is left open (True), for a
        rule to ask it last, once the local facts of a finding hold (most methods have none,
        and the project's callers are the costliest question)."""
        key = (function, ask_project)
        if key not in self._maybe:
            self._maybe[key] = self._could_be_hot(function, ask_project)
        return self._maybe[key]

    def _could_be_hot(self, function: cst.FunctionDef, ask_project: bool) -> bool:
        if function in self.reasons:
            return True
        parent = self.parents.get(function)
        if parent is not None:
            return not self._cold(function) and self.could_be_hot(parent, ask_project)
        if not self._indexed(function) or self._cold(function):
            return False
        if self.index.owner.get(function) is None:
            return True  # hot through a caller, or through a loop of its own (HTD202)
        return not ask_project or self.why_hot(function) is not None

    def _indexed(self, function: cst.FunctionDef) -> bool:
        """Whether ``function`` is a top-level function or a method of a top-level class:
        what the project index can name."""
        if self._top_level_functions is None:
            self._top_level_functions = frozenset(self.index.functions.values()) | frozenset(
                self.index.owner
            )
        return function in self._top_level_functions

    def could_be_hot_at(self, ancestors: list[cst.CSTNode], ask_project: bool = True) -> bool:
        """:meth:`could_be_hot` for the function around the end of ``ancestors``."""
        for i in range(len(ancestors) - 1, -1, -1):
            function = ancestors[i]
            if function.__class__ is cst.FunctionDef:  # not isinstance: see walk.node_classes
                return self.could_be_hot(function, ask_project)
        return False

    def why_hot_at(self, ancestors: list[cst.CSTNode]) -> str | None:
        """Why the code at the end of ``ancestors`` (outermost first) runs per step or per
        request; None when its function is not hot, or it is in a per-request entry point
        outside the entry point's loops."""
        for i in range(len(ancestors) - 1, -1, -1):
            function = ancestors[i]
            if not isinstance(function, cst.FunctionDef):
                continue
            reason = self.why_hot(function)
            if reason is None:
                return None
            self.reasons  # noqa: B018 - computes the per-request entry points
            outer = next((j for j in range(i, -1, -1) if ancestors[j] in self._loops_only), -1)
            if outer >= 0 and not self._in_step_loop(ancestors[outer], ancestors[outer + 1 :]):
                return None
            return reason
        return None

    def _in_step_loop(self, function: cst.CSTNode, inner: list[cst.CSTNode]) -> bool:
        assert isinstance(function, cst.FunctionDef)
        """Whether code under ``inner`` runs in a step loop of ``function`` (or in a callee)."""
        for node in inner:
            if isinstance(node, LOOPS) and self._step_loop(function, node):
                return True
            if function in self._host_io and isinstance(node, (cst.BaseComp, cst.DictComp)):
                return True  # an annotator's comprehension over scales or crops
            if isinstance(node, cst.FunctionDef):
                return called_in_loops(
                    function.body, node.name.value, lambda loop: self._step_loop(function, loop)
                )
        return False

    def _step_loop(self, function: cst.FunctionDef, loop: cst.CSTNode) -> bool:
        """Whether ``loop`` of the per-request entry point ``function`` runs per step."""
        if function not in self._model_loops_only:
            return True
        if loop not in self._model_loops:
            assert isinstance(loop, LOOPS)
            self._model_loops[loop] = runs_model(loop)
        return self._model_loops[loop]

    def qualified(self, function: cst.FunctionDef) -> str:
        """``Class.method`` for a method of a top-level class, else the function's name."""
        cls, name = self.index.owner.get(function), function.name.value
        return f"{cls.name.value}.{name}" if cls is not None else name

    # -- computing ----------------------------------------------------------------------------
    @property
    def parents(self) -> dict[cst.FunctionDef, cst.FunctionDef]:
        """Nested function -> the function it is defined in."""
        if self._parents is None:
            self._parents = nested_functions(self.context.module)
        return self._parents

    def _host_pipeline_method(self, function: cst.FunctionDef) -> bool:
        """A method of a tokenizer, processor or data transform: it works on host data
        wherever it is called from (a generation loop's ``tokenizer.decode(token)`` turns
        tokens the host has into text)."""
        cls = self.index.owner.get(function)
        return cls is not None and host_pipeline_classdef(cls)

    def _cold(self, function: cst.FunctionDef) -> bool:
        if function not in self._cold_answers:
            self._cold_answers[function] = self._cold_uncached(function)
        return self._cold_answers[function]

    def _cold_uncached(self, function: cst.FunctionDef) -> bool:
        name = function.name.value
        if self.cold_functions and matches(self.cold_functions, name, self.qualified(function)):
            return True
        if self._debug_module or diagnostic_name(name):
            return True  # ``_debug_transformer_args``, ``record_probe``: diagnostic aids
        if self._env_reads and debug_only(self.context.module, function):
            return True  # off unless a debugging variable is set at launch
        if self._rewrites and name not in HOT_ENTRY_POINTS and self._rewrites(function):
            return True  # model surgery, unless a forward reprojects its weights each call
        if host_only_method(self.context, self.index.owner.get(function), self._actors):
            return True  # a Ray actor without GPUs, a module never moved: host tensors only
        return self.once.function(function)

    def _entry_reason(self, function: cst.FunctionDef, method: bool = False) -> str | None:
        name = function.name.value
        cls = self.index.owner.get(function)
        method = method or cls is not None
        qualified = self.qualified(function)
        if self.hot_functions and matches(self.hot_functions, name, qualified):
            return f"`{qualified}()` is configured hot"
        reason = HOT_ENTRY_POINTS.get(name)
        if reason is not None and cls is not None and host_pipeline_classdef(cls):
            return None  # a tokenizer's decode, a data transform's __call__: host data work
        if reason is not None and cls is not None and offline_class(cls.name.value):
            return None  # an export wrapper's forward, an evaluator's __call__: no step
        if reason is not None and cls is not None and dataset_built_class(self.context, cls):
            return None  # a sample's transform that only datasets build: host data work
        if name == "__call__" and cls is not None and per_request_class(cls):
            self._loops_only.add(function)
            if pipeline_block(cls):
                self._model_loops_only.add(function)
            return PER_REQUEST_REASON
        if reason is not None and cls is not None and host_io_call(cls, function):
            self._loops_only.add(function)  # an annotator's __call__: a request, host data in
            self._host_io.add(function)
        if reason is not None and (
            runs_generations(function) or (name in TEXT_ENTRY_POINTS and returns_text(function))
        ):
            return None  # a preview callback's sample(): whole generations; a decode to text
        if reason is not None and (method or name not in METHOD_ONLY):
            if request_driver(function, cls):  # a codec's chunked decode, a sampler's run
                self._loops_only.add(function)
                self._delegates[function] = step_delegates(function, cls)  # its loop's holder
            return reason
        if name == "build" and cls is not None and builder_class(cls):
            return BUILDER_REASON
        if cls is not None:  # a step's state builder; a torchmetrics-style ``update()``
            state = state_builder_reason(name, cls.name.value) or metric_reason(name, cls)
            if state is not None:
                return state
        reason = name_reason(name, method)
        if reason is not None and reason.endswith(ATTENTION_TAIL) and returns_host_data(function):
            return None  # ``_apply_attention_mask(...) -> list[list[int]]``: prompt preparation
        return reason

    def _project_reason(self, qualified: str) -> str | None:
        """The project index's answer for a top-level function or a method: hot because a hot
        function calls it from another module, or through an object whose class the caller's
        module names (``self.drafter.propose(...)``), directly or through one more function."""
        provenance = Provenance.of(self.context)
        project, module = provenance.project, provenance.module_name
        if project is None or module is None:
            return None
        reason = project.hot_reason(
            f"{module}.{qualified}",
            self.hot_name,
            skip=lambda caller, callee: (
                occasional_call(project, caller)
                or host_io_request_call(project, caller, callee)
                or setup_call(self.index, self._loops_only, module, caller, callee)
            ),
        )
        if reason is None and not logging_name(qualified.rpartition(".")[2]):
            reason = step_loop_reason(project, f"{module}.{qualified}", self.hot_name)
        return reason

    def hot_name(self, name: str, cls: str | None, bases: tuple[str, ...] = ()) -> bool | None:
        """Whether a function of another module runs per step by its name alone (True), may
        run per step through its callers (False), or is cold, so that nothing is hot through
        it (None): configured cold, run once by its name (``__init__``, ``setup``,
        ``load_weights``), a logger (``log_metrics``: it reads values to show them), or a
        pipeline's per-request ``__call__`` (only its loops are hot, and the index does not
        say whether the call is in one)."""
        qualified = f"{cls}.{name}" if cls else name
        if self.cold_functions and matches(self.cold_functions, name, qualified):
            return None
        if self.hot_functions and matches(self.hot_functions, name, qualified):
            return True
        if once_name(name, cls) or logging_name(name):
            return None
        if (
            name == "__call__"
            and cls is not None
            and "Loop" not in cls
            and any(word in n for n in (cls, *bases) for word in PER_REQUEST_CLASS_WORDS)
        ):
            return None
        if cls is not None and host_pipeline_class(cls, bases) and name in HOT_ENTRY_POINTS:
            return False  # a tokenizer's decode, a data transform's __call__: host data work
        if name in HOT_ENTRY_POINTS and offline_class(cls):
            return None  # an export wrapper's forward, an evaluator's __call__: no step
        if name in HOT_ENTRY_POINTS and (cls is not None or name not in METHOD_ONLY):
            return True
        if name == "build" and cls is not None and "Metadata" in cls and cls.endswith("Builder"):
            return True
        if state_builder_reason(name, cls) or metric_update_reason(name, cls, bases):
            return True
        return name_reason(name, cls is not None) is not None

    @property
    def reasons(self) -> dict[cst.FunctionDef, str]:
        if self._reasons is None:
            self._reasons = self._propagate()
        return self._reasons

    @property
    def test_module(self) -> bool:
        """Whether this file is test code of its package (see :meth:`_test_module`)."""
        return self._test_module(self.context.file_name)

    def _test_module(self, file_name: str) -> bool:
        """Whether the file is test code of its package (:func:`hot_names.test_module`)."""
        return test_module(Provenance.of(self.context).module_name, file_name)

    def _functions(self) -> list[cst.FunctionDef]:
        methods = self.index.methods.values()
        return [*self.index.functions.values(), *(m for ms in methods for m in ms.values())]

    def _propagate(self) -> dict[cst.FunctionDef, str]:
        reasons: dict[cst.FunctionDef, str] = {}
        name = self.context.file_name
        if name.startswith(PREPROCESSING_MODULES) or self._test_module(name):
            return reasons
        queue: list[tuple[cst.FunctionDef, cst.FunctionDef]] = []  # (function, its root)
        for function in self._functions():
            if self._cold(function):
                continue
            reason = self._entry_reason(function)
            if reason is not None:
                reasons[function] = reason
                queue.append((function, function))
        for driver, delegates in self._delegates.items():
            for holder in (m for m in delegates if m not in reasons and not self._cold(m)):
                reasons[holder] = f"called from `{self.qualified(driver)}()`"
                self._loops_only.add(holder)  # only its loop of steps is hot
                queue.append((holder, driver))
        # A closure a factory returns or installs runs when called, by its own name.
        for function, method in installed_closures(self.parents).items():
            reason = None if self._cold(function) else self._entry_reason(function, method)
            if reason is not None:
                reasons[function] = reason
                queue.append((function, function))
        context = self.context
        registered = registered_functions(
            context.module, context.source, self.index, self.parents, name
        )
        for function, reason in registered.items():
            if function not in reasons and not self._cold(function):
                reasons[function] = reason
                queue.append((function, function))
        while queue:
            caller, root = queue.pop(0)
            for callee in self._callees(caller):
                if callee in reasons or self._cold(callee):
                    continue
                via = "" if caller is root else f" through `{self.qualified(caller)}()`"
                reasons[callee] = f"called from `{self.qualified(root)}()`{via}"
                queue.append((callee, root))
        return reasons

    def _callees(self, function: cst.FunctionDef) -> list[cst.FunctionDef]:
        cls, self_names = calling_class(self.index, self.parents, function)
        collector = SameModuleCalls(self.index, self.once, cls, self_names)
        collector.loops_only = function in self._loops_only
        collector.model_loops_only = function in self._model_loops_only
        collector.keep_looping = function in self._host_io
        collector.function = function
        collector.env_reads = self._env_reads
        parent = self.parents.get(function)
        if parent is not None:
            collector.siblings = {
                f.name.value: f
                for f, p in self.parents.items()
                if p is parent and f is not function
            }
        visit_read_only(function.body, collector)
        return collector.found

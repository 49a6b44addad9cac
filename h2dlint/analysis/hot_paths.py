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
  ``build_attn_metadata``), which :mod:`h2dlint.analysis.once` does not take for initialisers;
- or it is configured hot (``[tool.h2dlint.analysis] hot-functions``);
- or a hot function of the same module calls it, directly or through other functions:
  ``self.<method>(...)``/``cls.<method>(...)`` of the caller's own class, and calls of a
  top-level function by its name. A call under a run-once guard (``if self.cache is None:``)
  does not count;
- or, for a top-level function a rule asks about, the project index (``h2dlint.project``)
  finds a caller in another module that is hot by its name (or calls it from one more function
  that is). Only the function asked about is looked up: what it calls in its module is not
  marked hot through it.

A *per-request* entry point runs once per request around a loop of steps: ``__call__`` of a
pipeline (a class whose name or a base's says ``Pipeline``, such as diffusers'
``DiffusionPipeline`` and ``ModularPipelineBlocks``, unless its name says ``Loop``: the blocks
of a denoising loop run per step). In a block of a modular pipeline (a base named
``...Blocks``, not ``...Loop...``) only loops whose own body calls a model count (an
autoregressive decoding loop; not a loop over conditions or frames). Only the code in its
loops (``for``/``while`` bodies) runs per step, so only that code is hot, and only what it
calls from there; its prompt encoding, input checks and schedule set-up run once per request,
when nothing is queued on the device to stall.

Run-once code (:mod:`h2dlint.analysis.once`: initialisers, setup, loaders, tests, memoised
functions) and functions configured cold (``cold-functions``) are never hot, and nothing is hot
through them. ``generate`` is deliberately no entry point: it runs once per request around a
decoding loop of many steps, and the steps it calls (``forward``, ``sample``) are the hot ones.

Data preprocessing modules (``processing_*.py``, ``image_processing_*.py``,
``feature_extraction_*.py``, ``tokenization_*.py``...) run on the host before the model: none of
their functions is hot.

A nested function (a closure, a local helper) is as hot as the function it is defined in.
Configured names match a function's own name or its qualified name (``Class.method``), also as
``fnmatch`` globs (``*Attention.forward``, ``_step_*``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.frames import ModuleIndex
from h2dlint.analysis.host_data import PREPROCESSING_MODULES
from h2dlint.analysis.hot_names import (
    BUILDER_REASON,
    HOT_ENTRY_POINTS,
    LOOPS,
    METHOD_ONLY,
    PER_REQUEST_CLASS_WORDS,
    PER_REQUEST_REASON,
    TEST_PACKAGES,
    matches,
    name_reason,
    state_builder_reason,
)
from h2dlint.analysis.once import RunOnce, builder_class, once_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.sync_basics import periodic_test
from h2dlint.context import SharedKey
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    from h2dlint.context import FileContext


class _Calls(cst.CSTVisitor):
    """The functions of the module one function calls: ``self.m(...)``/``cls.m(...)`` of its
    class, and top-level functions by name. Nested functions and lambdas count as part of the
    function; calls under a run-once guard do not."""

    def __init__(
        self,
        index: ModuleIndex,
        once: RunOnce,
        cls: cst.ClassDef | None,
        self_names: tuple[str, ...],
    ) -> None:
        self.index = index
        self.once = once
        self.cls = cls
        self.self_names = self_names
        self.found: list[cst.FunctionDef] = []
        # Only calls in loops count (the caller runs once per request around its loops).
        self.loops_only = False
        # Only calls in loops that run a model count (a block of a modular pipeline).
        self.model_loops_only = False
        self.depth = 0

    def _counts(self, node: cst.For | cst.While) -> int:
        return 1 if not self.model_loops_only or runs_model(node) else 0

    def visit_For(self, node: cst.For) -> None:
        self.depth += self._counts(node)

    def leave_For(self, original_node: cst.For) -> None:
        self.depth -= self._counts(original_node)

    def visit_While(self, node: cst.While) -> None:
        self.depth += self._counts(node)

    def leave_While(self, original_node: cst.While) -> None:
        self.depth -= self._counts(original_node)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_If(self, node: cst.If) -> bool:
        visit_read_only(node.test, self)
        if not self.once.guard(node, self.cls) and not periodic_test(node.test):
            visit_read_only(node.body, self)
        if node.orelse is not None:
            visit_read_only(node.orelse, self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if self.loops_only and not self.depth:
            return
        func = node.func
        if isinstance(func, cst.Name):
            target = self.index.functions.get(func.value)
            if target is not None:
                self.found.append(target)
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in self.self_names
            and self.cls is not None
        ):
            target = self.index.methods.get(self.cls, {}).get(func.attr.value)
            if target is not None:
                self.found.append(target)


# Calls that run a step of a block's loop: a model or its head (words of the called
# expression, lower case).
STEP_WORK_WORDS = ("transformer", "unet", "denoise", "model", "lm_head", "scheduler.step")


class _StepWork(cst.CSTVisitor):
    """Whether a loop's own body (not nested loops, functions or classes) runs a model."""

    def __init__(self) -> None:
        self.found = False
        self.module = cst.Module([])

    def visit_For(self, node: cst.For) -> bool:
        return False

    def visit_While(self, node: cst.While) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        if not self.found:
            code = self.module.code_for_node(node.func).lower()
            self.found = any(word in code for word in STEP_WORK_WORDS)
        return not self.found


def runs_model(loop: cst.For | cst.While) -> bool:
    """Whether ``loop``'s own body calls a model (``self.transformer(...)``,
    ``language_model.lm_head(...)``, ``scheduler.step(...)``)."""
    finder = _StepWork()
    visit_read_only(loop.body, finder)
    return finder.found


def _pipeline_block(cls: cst.ClassDef) -> bool:
    """Whether ``cls`` is a block of a modular pipeline (its name or a base's says
    ``Blocks``) that is no loop block (its own name no ``Loop``)."""
    names = [cls.name.value, *(dotted_name(base.value) or "" for base in cls.bases)]
    return "Loop" not in cls.name.value and any("Blocks" in name for name in names)


def _per_request(cls: cst.ClassDef) -> bool:
    """Whether ``cls``'s ``__call__`` runs once per request around a loop of steps."""
    names = [cls.name.value, *(dotted_name(base.value) or "" for base in cls.bases)]
    return "Loop" not in cls.name.value and any(
        word in name for name in names for word in PER_REQUEST_CLASS_WORDS
    )


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
        self._reasons: dict[cst.FunctionDef, str] | None = None
        self._parents: dict[cst.FunctionDef, cst.FunctionDef] | None = None
        # Per-request entry points: only the code in their loops is hot.
        self._loops_only: set[cst.FunctionDef] = set()
        # Blocks of a modular pipeline: only their loops that run a model (an autoregressive
        # decoding loop); their other loops walk inputs once per request.
        self._model_loops_only: set[cst.FunctionDef] = set()
        self._model_loops: dict[cst.CSTNode, bool] = {}
        # The project index's answers, for the functions asked about.
        self._asked: dict[cst.FunctionDef, str | None] = {}
        # could_be_hot's answers (a True may later turn out not hot: it only gates).
        self._maybe: dict[cst.FunctionDef, bool] = {}
        self._top_level_functions: frozenset[cst.FunctionDef] | None = None

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
                if self._indexed(function) and not self._cold(function)
                else None
            )
        return self._asked[function]

    def could_be_hot(self, function: cst.FunctionDef) -> bool:
        """False only when ``function`` is surely not hot, without asking the project: a cheap
        gate before costlier questions (where a tensor lives) and :meth:`why_hot`."""
        known = self._maybe.get(function)
        if known is None:
            known = self._maybe[function] = self._could_be_hot(function)
        return known

    def _could_be_hot(self, function: cst.FunctionDef) -> bool:
        if function in self.reasons:
            return True
        if function in self._asked:
            return self._asked[function] is not None
        parent = self.parents.get(function)
        if parent is not None:
            return not self._cold(function) and self.could_be_hot(parent)
        if not self._indexed(function) or self._cold(function):
            return False
        if self.index.owner.get(function) is not None:
            # A method: one question to the project answers for all its code (a class has
            # many methods and few are reached per step; the gate stays shut for the rest).
            return self.why_hot(function) is not None
        return True

    def _indexed(self, function: cst.FunctionDef) -> bool:
        """Whether the project can be asked about ``function``: a top-level function, or a
        method of a top-level class (its callers elsewhere reach it through an instance the
        calling class constructs, ``self.batch = InputBatch(...)``)."""
        if self._top_level_functions is None:
            found = set(self.index.functions.values())
            for methods in self.index.methods.values():
                found.update(methods.values())
            self._top_level_functions = frozenset(found)
        return function in self._top_level_functions

    def could_be_hot_at(self, ancestors: list[cst.CSTNode]) -> bool:
        """:meth:`could_be_hot` for the function around the end of ``ancestors``."""
        for i in range(len(ancestors) - 1, -1, -1):
            function = ancestors[i]
            if isinstance(function, cst.FunctionDef):
                return self.could_be_hot(function)
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
            if function in self._loops_only and not any(
                isinstance(node, LOOPS) and self._step_loop(function, node)
                for node in ancestors[i + 1 :]
            ):
                return None
            return reason
        return None

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
        cls = self.index.owner.get(function)
        name = function.name.value
        return f"{cls.name.value}.{name}" if cls is not None else name

    # -- computing ----------------------------------------------------------------------------
    @property
    def parents(self) -> dict[cst.FunctionDef, cst.FunctionDef]:
        """Nested function -> the function it is defined in."""
        if self._parents is None:
            collector = _Nesting()
            visit_read_only(self.context.module, collector)
            self._parents = collector.parents
        return self._parents

    def _cold(self, function: cst.FunctionDef) -> bool:
        name = function.name.value
        if self.cold_functions and matches(self.cold_functions, name, self.qualified(function)):
            return True
        return self.once.function(function)

    def _entry_reason(self, function: cst.FunctionDef) -> str | None:
        name = function.name.value
        cls = self.index.owner.get(function)
        qualified = self.qualified(function)
        if self.hot_functions and matches(self.hot_functions, name, qualified):
            return f"`{qualified}()` is configured hot"
        reason = HOT_ENTRY_POINTS.get(name)
        if name == "__call__" and cls is not None and _per_request(cls):
            self._loops_only.add(function)
            if _pipeline_block(cls):
                self._model_loops_only.add(function)
            return PER_REQUEST_REASON
        if reason is not None and (cls is not None or name not in METHOD_ONLY):
            return reason
        if name == "build" and cls is not None and builder_class(cls):
            return BUILDER_REASON
        if cls is not None:
            state = state_builder_reason(name, cls.name.value)
            if state is not None:
                return state
        return name_reason(name, cls is not None)

    def _project_reason(self, qualified: str) -> str | None:
        """The project index's answer for a top-level function: hot because a hot function of
        another module calls it (directly or through one more function)."""
        provenance = Provenance.of(self.context)
        project, module = provenance.project, provenance.module_name
        if project is None or module is None:
            return None
        return project.hot_reason(f"{module}.{qualified}", self._hot_name, once_name)

    def _hot_name(self, name: str, cls: str | None) -> bool:
        """Whether a function of another module runs per step by its name alone."""
        qualified = f"{cls}.{name}" if cls else name
        if self.cold_functions and matches(self.cold_functions, name, qualified):
            return False
        if self.hot_functions and matches(self.hot_functions, name, qualified):
            return True
        if (
            name == "__call__"
            and cls is not None
            and "Loop" not in cls
            and any(word in cls for word in PER_REQUEST_CLASS_WORDS)
        ):
            return False  # a pipeline's per-request call: only its loops are hot, and the
            # index does not say whether the call is in one
        if name in HOT_ENTRY_POINTS and (cls is not None or name not in METHOD_ONLY):
            return True
        if name == "build" and cls is not None and "Metadata" in cls and cls.endswith("Builder"):
            return True
        if state_builder_reason(name, cls) is not None:
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
        name = self.context.path.replace("\\", "/").rsplit("/", 1)[-1]
        return self._test_module(name)

    def _test_module(self, file_name: str) -> bool:
        """Whether the file is test code of its package (``pkg.test_utils.*``,
        ``pkg.testing.*``, ``test_*.py``): what it runs per step is a test's, not
        production's."""
        module = Provenance.of(self.context).module_name
        parts = module.split(".") if module else [file_name.removesuffix(".py")]
        return any(part in TEST_PACKAGES for part in parts[:-1]) or parts[-1].startswith("test_")

    def _functions(self) -> list[cst.FunctionDef]:
        found = list(self.index.functions.values())
        for methods in self.index.methods.values():
            found.extend(methods.values())
        return found

    def _propagate(self) -> dict[cst.FunctionDef, str]:
        reasons: dict[cst.FunctionDef, str] = {}
        name = self.context.path.replace("\\", "/").rsplit("/", 1)[-1]
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
        cls = self.index.owner.get(function)
        frame = self.index.frame_of(function)
        self_names = tuple(n for n in (frame.self_name, "cls" if cls is not None else None) if n)
        collector = _Calls(self.index, self.once, cls, self_names)
        collector.loops_only = function in self._loops_only
        collector.model_loops_only = function in self._model_loops_only
        visit_read_only(function.body, collector)
        return collector.found


class _Nesting(cst.CSTVisitor):
    def __init__(self) -> None:
        self.stack: list[cst.FunctionDef] = []
        self.parents: dict[cst.FunctionDef, cst.FunctionDef] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.stack:
            self.parents[node] = self.stack[-1]
        self.stack.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

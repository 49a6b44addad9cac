"""Code that runs once per object or per program, not on a hot path.

A blocking copy there costs once, at setup; rules about per-call costs (HTD106) leave it alone.
Code runs once when it is:

- at module level or in a class body;
- in a function named as a constructor or initializer (``__init__``, ``__post_init__``,
  ``setup``, ``build``, ``from_pretrained``, ``reset_parameters``, ``_init_weights``,
  ``init_*``/``_init*``/``initialize*``, ``install_*``, ``load_state_dict``, ``load_weights``-
  and ``load_fp16``-style loaders,
  a serving engine's start-up runs: ``warmup``, ``profile_run``, ``_dummy_run``,
  ``capture_model`` and ``capture_*graph*``, an ONNX export: ``llm_to_onnx``,
  ``export_onnx``),
  a test (``test_*``, ``_test_*``, a method of a ``unittest.TestCase``, ``setUp``, and a
  function nested in a test: a helper that makes the test's inputs), or one memoised by a
  decorator (``functools.cache``/``lru_cache``, ``cached_property``) or by hand: a method
  that first returns what it keeps on ``self`` when it has it (``cached = getattr(self, "x",
  None)`` / ``if cached is not None: return cached``) and keeps what it computes there
  (``self.x = ...``), or by key (``cached = cache.get(key)`` / ``if cached is not None:
  return cached`` ... ``cache[key] = ...``: its work runs once per key);
- in a helper whose every reference in the module is a call from run-once code (the factory
  ``__init__`` calls, a ``_prepare_*`` a flag guards); a public one only when no framework
  and no other module calls it but from run-once functions (BigVGAN's filter builder, called
  by another module's ``__init__``); not in the loops of a script's ``main()``
  (:meth:`RunOnce.driver`), its steps; its code outside them runs once (:meth:`lone_driver`);
- in a helper nested in a function that runs once and only called there by name (not
  returned, handed on as a hook or callback, or called from a lambda or another nested
  function): :func:`local_helpers.local_helper`;
- under a guard that makes it run once: ``if key not in cache: cache[key] = ...``,
  ``if self.x is None: self.x = ...`` (also through a local name: ``x = self.x``, ``if x is
  None: ... self.x = x``), ``if not hasattr(self, "x")``,
  ``if getattr(self, "x", None) is None: self.register_buffer("x", ...)``,
  ``if self.x.numel() == 0: self.x = ...``, and flags: ``if not self.ready: ...`` (or
  ``if self.pending: ...``) where the body, or a method of the class it calls, assigns the flag;
- on a failure path: before the final ``raise`` of a block of its function that nothing
  else leaves (:func:`edge_cases.failure_tail`: a rank's exception broadcast before it is
  raised);
- in a closure factory: a function that returns a nested function or lambda, whose tensors are
  precomputed constants of the closure (the closure is what runs per call).

Names alone are never trusted beyond that list: ``build_*``, ``load_*`` and ``from_*`` are
often per-call (``build_attention_mask``, ``load_image``, ``from_dense``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.argument_flow import framework_called, once_elsewhere
from h2dlint.analysis.class_bases import written_bases
from h2dlint.analysis.edge_cases import failure_tail
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import ModuleIndex, decorator_names
from h2dlint.analysis.hot_names import HOT_ENTRY_POINTS
from h2dlint.analysis.local_helpers import local_helper
from h2dlint.analysis.memo_methods import (
    assigned_anywhere,
    closure_factory,
    compile_pass,
    memoised,
    memoised_by_key,
)
from h2dlint.analysis.nested_functions import nested_functions
from h2dlint.analysis.once_guards import (
    alias_memo_guard,
    guarded_attribute,
    memo_else,
    memo_guard,
    raised_off_zero,
    self_attribute,
)
from h2dlint.analysis.once_references import Reference, References, private
from h2dlint.analysis.other_callers import called_elsewhere
from h2dlint.analysis.per_call_objects import Constructions, made_per_call, plain_constructions
from h2dlint.analysis.per_forward_inits import (
    PER_PASS_CALLERS,
    called_per_forward,
    init_named,
    returns_when_done,
)
from h2dlint.analysis.per_step_names import (
    builder_class,
    per_step_state_builder,
    step_metadata_name,
)
from h2dlint.analysis.periodic_exits import every_n_steps, has_loop
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.weight_loads import loads_model_each_call
from h2dlint.context import SharedKey
from h2dlint.imports import dotted_name, statements
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    from h2dlint.context import FileContext

ONCE_NAMES = frozenset(
    {
        "__init__",
        "__post_init__",
        "__new__",
        "__init_subclass__",
        "__set_name__",
        "__setstate__",
        "setup",
        "_setup",
        "setUp",
        "setUpClass",
        "setup_method",
        "setup_class",
        "build",
        "_build",
        "from_pretrained",
        "from_config",
        "from_single_file",
        "post_init",
        "reset_parameters",
        "_reset_parameters",
        "tie_weights",
        "_tie_weights",
        "load_state_dict",
        "_load_from_state_dict",
        # A serving engine's start-up runs: warm-up, memory profiling, CUDA graph capture.
        "warmup",
        "_warmup",
        "warm_up",
        "_warm_up",
        "profile_run",
        "_profile_run",
        "dummy_run",
        "_dummy_run",
        "capture_model",
        "_capture_model",
    }
)
ONCE_PREFIXES = (
    "_init",
    "init_",
    "initialize",
    "_initialize",
    "setup_",
    "_setup_",
    "install_",
    "_install_",
    "test_",
    "_test_",  # a private test body a harness runs (``_test_ddp_helper``), or a probe
)
# ``load_*``/``_load_*`` runs once when it loads state, not data: ``load_weights``,
# ``load_checkpoint`` (not ``load_image``, ``load_balancing_loss_func``).
LOAD_PREFIXES = ("load_", "_load_")
LOAD_WORDS = ("weight", "state_dict", "checkpoint", "pretrained", "model", "lora", "adapter")
LOAD_WORDS_OF_FORMATS = ("fp16", "bf16", "fp8", "fp32")  # ``load_fp16``: a weight's format
MEMOISING_DECORATORS = frozenset({"cache", "lru_cache", "cached_property"})


def once_name(name: str, cls: str | None = None) -> bool:
    """Whether a function's name alone says it runs once (see the module docs):
    :func:`once_by_name` without the decorators and bases, also for a function known only by
    name. Not the per-step names that look like initialisers (``init_forward_metadata``,
    ``build`` of a metadata builder, ``ForwardBatch.init_new``)."""
    if step_metadata_name(name) or (cls is not None and per_step_state_builder(name, cls)):
        return False
    if name in ("build", "_build") and cls is not None and "Metadata" in cls:
        return False
    if name in ONCE_NAMES or name.startswith(ONCE_PREFIXES):
        return True
    bare = name.lstrip("_")
    if bare.startswith(("capture", "warmup", "warm_up")) and "graph" in bare:
        return True  # ``capture_cudagraphs``, ``_capture_graph``, ``warmup_graphs``
    if bare.startswith("dummy_") and bare.endswith("_run"):
        return True  # ``_dummy_sampler_run``: a profiling run before serving
    if onnx_export_name(bare):
        return True  # ``llm_to_onnx``, ``export_onnx``: dummy inputs made once for the exporter
    words = LOAD_WORDS + LOAD_WORDS_OF_FORMATS
    return name.startswith(LOAD_PREFIXES) and any(word in name for word in words)


def onnx_export_name(name: str) -> bool:
    """``llm_to_onnx``, ``export_onnx``, ``onnx_export_model``: a function named for exporting
    a model to ONNX traces it once. Not any name with ``onnx`` (``_check_onnx_readiness``
    runs per forward)."""
    words = name.lower().split("_")
    return "onnx" in words and ("export" in words or name.lower().endswith("to_onnx"))


def once_by_name(function: cst.FunctionDef, cls: cst.ClassDef | None = None) -> bool:
    """Whether ``function``'s name or decorators say it runs once (see the module docs). Not
    the per-step names that look like initialisers: ``build`` of an attention metadata
    builder, ``init_forward_metadata``."""
    name = function.name.value
    if step_metadata_name(name) or (
        name in ("build", "_build") and cls is not None and builder_class(cls)
    ):
        return False
    if cls is not None and per_step_state_builder(name, cls.name.value):
        return False  # ``ForwardBatch.init_new``: built anew for every step
    if once_name(name):
        return True
    if cls is not None and any(base.endswith("TestCase") for base in written_bases(cls)):
        return True  # a method of a unittest test case (setUp, helpers)
    return bool(decorator_names(function) & MEMOISING_DECORATORS)


def in_test(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether a function around the node (root first) is a test (``test_*``, ``_test_*``):
    a helper nested in it (``def make_input(): ...`` inside ``test_div``) makes the test's
    inputs, once or a few times per test, whoever calls it."""
    return any(
        isinstance(node, cst.FunctionDef) and node.name.value.startswith(("test_", "_test_"))
        for node in ancestors
    )


# -- the module's run-once code -----------------------------------------------------------------
class RunOnce:
    """Which functions and code of one module run once (see the module docs). Built lazily;
    each answer is memoised."""

    @classmethod
    def of(cls, context: FileContext) -> RunOnce:
        def build() -> RunOnce:
            source = Provenance.of(context)
            return cls(context.module, source.index, source)

        return context.shared(RUN_ONCE, build)

    def __init__(
        self, module: cst.Module, index: ModuleIndex, source: FactSource | None = None
    ) -> None:
        self.module = module
        self.index = index
        self.source = source  # the project's other modules: who else calls a public name
        self._references: dict[str, list[Reference]] | None = None
        self._functions: dict[cst.FunctionDef, bool] = {}
        self._in_progress: set[cst.FunctionDef] = set()
        self._per_call: dict[cst.ClassDef, bool] = {}
        self._constructions: Constructions | None = None
        self._parents: dict[cst.FunctionDef, cst.FunctionDef] | None = None

    @property
    def references(self) -> dict[str, list[Reference]]:
        if self._references is None:
            index = self.index
            defined = {*index.functions, *(m for ms in index.methods.values() for m in ms)}
            collector = References(frozenset(defined))
            visit_read_only(self.module, collector)
            self._references = collector.found
        return self._references

    def function(self, function: cst.FunctionDef) -> bool:
        """Whether ``function`` runs once per object or program."""
        if function in self._functions:
            return self._functions[function]
        if function in self._in_progress:
            return False  # a recursive helper: not proven
        self._in_progress.add(function)
        try:
            result = self._function(function)
        finally:
            self._in_progress.discard(function)
        self._functions[function] = result
        return result

    def _function(self, function: cst.FunctionDef) -> bool:
        cls = self.index.owner.get(function)
        if cls is not None and function.name.value == "__init__" and self._made_per_call(cls):
            return False  # a mask object made in every forward (``per_call_objects``)
        if (
            (once_by_name(function, cls) and not self._per_forward(function, cls))
            or closure_factory(function)
            or memoised(function, cls)
            or memoised_by_key(function)
            or compile_pass(function)
            or loads_model_each_call(function)
        ):
            return True
        name = function.name.value
        top_level = self.index.functions.get(name) is function
        if not top_level and cls is None:
            return self._local_helper_once(function)
        if name.startswith("__"):
            return False
        if name not in HOT_ENTRY_POINTS and self._periodic_only(function, cls):
            return True
        if not private(name) and (self.source is None or framework_called(name)):
            return False
        references = [
            r
            for r in self.references.get(name, [])
            if r.function is not function and self._refers_to(r, name, cls)
        ]
        if not references or not all(r.called and self._reference_once(r, cls) for r in references):
            return False
        if not private(name) and all(r.function is None for r in references):
            return False  # a script's public main(): hot paths follow its loops of steps
        if not private(name) and self.source and called_elsewhere(self.source, name):
            return cls is None and once_elsewhere(self.source, name, once_name)  # an __init__'s
        return True

    def _periodic_only(self, function: cst.FunctionDef, cls: cst.ClassDef | None) -> bool:
        """Every call of ``function`` in its module is under a periodic gate that is no
        gradient accumulation's (``if not (step % self.validate_every_step):
        self.valid_step(...)``), and no other module calls it: it runs every N steps, whatever
        its name says (session 51, fp51). Not one with a loop of its own: a validation pass over
        batches syncs on every batch of each pass (instructlab-training 0.16.2's
        ``compute_validation_loss``, called ``if global_step % validation_frequency == 0``)."""
        name = function.name.value
        mine = [
            r
            for r in self.references.get(name, [])
            if r.function is not function and self._refers_to(r, name, cls)
        ]
        gated = (r.called and any(every_n_steps(g.test) for g in r.guards) for r in mine)
        if not mine or not all(gated) or has_loop(function.body):
            return False
        return private(name) or not (self.source and called_elsewhere(self.source, name))

    def _per_forward(self, function: cst.FunctionDef, cls: cst.ClassDef | None) -> bool:
        """An initializer-named method that its class's ``forward`` (or a method ``forward``
        calls) calls with no run-once guard around: per pass (:mod:`per_forward_inits`)."""
        name = function.name.value
        if cls is None or name in ONCE_NAMES or not init_named(name):
            return False
        if returns_when_done(function):
            return False  # lazy set-up: ``if self.initialized: return``
        methods = self.index.methods.get(cls, {})

        def per_pass(caller: cst.FunctionDef) -> bool:
            caller_name = caller.name.value
            if self.index.owner.get(caller) is not cls:
                return False
            if caller_name in PER_PASS_CALLERS:
                return True
            return methods.get(caller_name) is caller and any(
                r.called and r.function is not None and r.function.name.value in PER_PASS_CALLERS
                for r in self.references.get(caller_name, [])
                if self._refers_to(r, caller_name, cls)
            )

        mine = [r for r in self.references.get(name, []) if self._refers_to(r, name, cls)]
        return called_per_forward(mine, per_pass, lambda g: self.guard(g, cls))

    def _local_helper_once(self, function: cst.FunctionDef) -> bool:
        """A helper nested in a function that runs once, and only called there by name,
        runs once too (exllamav3's ``_bias_ptrs`` pointer tables, built in ``load_local``)."""
        if self._parents is None:
            self._parents = nested_functions(self.module)
        around = self._parents.get(function)
        return around is not None and local_helper(function, around) and self.function(around)

    def _made_per_call(self, cls: cst.ClassDef) -> bool:
        known = self._per_call.get(cls)
        if known is None:
            if self._constructions is None:
                self._constructions = plain_constructions(self.module, self.index.classes)
            self._per_call[cls] = False  # while judging: a construction in its own class
            known = self._per_call[cls] = made_per_call(cls, self._constructions, self.code)
        return known

    def _refers_to(self, reference: Reference, name: str, cls: cst.ClassDef | None) -> bool:
        """Whether ``reference`` may be to the function ``name`` (a method of ``cls``, or a
        top-level function when ``cls`` is None). ``self._m`` in another class that defines
        its own ``_m`` is not; any other object's ``._m`` may be."""
        if cls is None:
            return reference.base is None
        if reference.base is None:
            return False
        if reference.base not in ("self", "cls") or reference.function is None:
            return True
        owner = self.index.owner.get(reference.function)
        return (
            owner is None
            or owner is cls
            or name not in self.index.methods.get(owner, {})
            or self._inherits(cls, owner)  # the base's ``self._m()`` calls the override
        )

    def _inherits(self, cls: cst.ClassDef, base: cst.ClassDef, depth: int = 0) -> bool:
        """Whether ``cls`` derives from ``base`` through classes of this module."""
        for arg in cls.bases:
            parent = self.index.classes.get(dotted_name(arg.value) or "")
            if parent is base or (
                parent is not None and depth < 8 and self._inherits(parent, base, depth + 1)
            ):
                return True
        return False

    def _reference_once(self, reference: Reference, cls: cst.ClassDef | None) -> bool:
        if reference.function is None:
            return True  # module level or a class body
        if any(self.guard(g, cls) for g in reference.guards):
            return True
        if reference.in_loop and self.driver(reference.function):
            return False  # in a script's main loop
        return self.function(reference.function)

    def guard(self, node: cst.If, cls: cst.ClassDef | None = None) -> bool:
        """Whether ``node`` runs its body once: a memoisation guard (:func:`memo_guard`), a
        flag of ``self`` that the body, or a method of ``cls`` the body calls, assigns, or a
        counter tested for zero that the body raises (:func:`raised_off_zero`)."""
        if memo_guard(node):
            return True
        flag = guarded_attribute(node.test)
        if flag is None:
            return False
        bodies: list[cst.BaseSuite] = [node.body]
        methods = self.index.methods.get(cls, {}) if cls is not None else {}
        for small in statements(node.body):
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
                continue
            func = small.value.func
            if (
                self_attribute(func)
                and isinstance(func, cst.Attribute)
                and func.attr.value in methods
            ):
                bodies.append(methods[func.attr.value].body)
        return any(
            self_attribute(target) and target.deep_equals(flag)
            for body in bodies
            for target in assigned_anywhere(body)
        ) or raised_off_zero(node.test, flag, node.body)

    def code(self, ancestors: list[cst.CSTNode]) -> bool:
        """Whether the innermost node of ``ancestors`` (root first) is in code that runs
        once: at module level or in a class body, in a function that runs once, or under a
        guard in its function that runs its body once, or on the way to its function's
        ``raise`` (:func:`edge_cases.failure_tail`); not in a loop of a script's driver."""
        if failure_tail(ancestors):
            return True  # a failure's report, built once before the error leaves
        looped = False
        for i in range(len(ancestors) - 1, -1, -1):
            node = ancestors[i]
            if isinstance(node, cst.Lambda):
                return False  # runs when called
            looped = looped or isinstance(node, (cst.For, cst.While))
            if (
                isinstance(node, cst.If)
                and i + 1 < len(ancestors)
                and ancestors[i + 1] is node.body
                and (
                    self.guard(node, self._class_of(ancestors, i))
                    or (i > 0 and alias_memo_guard(node, ancestors[i - 1]))
                )
            ):
                return True
            if (
                isinstance(node, cst.If)
                and i + 1 < len(ancestors)
                and memo_else(node, ancestors[i + 1])
            ):
                return True  # the ``else`` of ``if "step" in group:`` sets ``group["step"]``
            if isinstance(node, cst.FunctionDef):
                driver = self.driver(node)
                if driver and looped:
                    return False  # a step of a script's main loop
                return (
                    (driver and self.lone_driver(node))
                    or self.function(node)
                    or in_test(ancestors[:i])
                )
        return True

    def driver(self, function: cst.FunctionDef) -> bool:
        """Whether ``function`` drives a script: a top-level function that only module-level
        code calls (``main()`` under ``if __name__ == "__main__":``), whose loops are its steps."""
        references = self.references.get(function.name.value, [])
        top = self.index.functions.get(function.name.value) is function
        return top and bool(references) and all(r.function is None for r in references)

    def lone_driver(self, function: cst.FunctionDef) -> bool:
        """Whether a driver is the script's own: only called (handed to no one), by no other
        module. Its code outside its loops runs once; what it calls does not follow."""
        name = function.name.value
        if self.source is None or not all(r.called for r in self.references.get(name, [])):
            return False  # a callback: whoever receives it may call it per step
        return not called_elsewhere(self.source, name)

    def _class_of(self, ancestors: list[cst.CSTNode], i: int) -> cst.ClassDef | None:
        for j in range(i, -1, -1):
            node = ancestors[j]
            if isinstance(node, cst.FunctionDef):
                return self.index.owner.get(node)
        return None


RUN_ONCE: SharedKey[RunOnce] = SharedKey("run once")

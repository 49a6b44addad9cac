"""How often a line runs, beyond hot paths and run-once code (HTD106, HTD107): inside a loop of
its own function, in code whose name says it runs now and then, or on a cache miss only."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_names import diagnostic_name, logging_name
from h2dlint.analysis.names import names_in, names_read, target_names
from h2dlint.analysis.per_call_mappings import per_call_lookup, per_call_mapping
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import name_words
from h2dlint.walk import visit_read_only

# Words of a function, class or file name that say it runs now and then, not per step (checked
# only where no hot path says otherwise): saving, converting and exporting checkpoints, warm-up,
# profiling, benchmarks and scripts, logging and reports, offline data analysis, validation.
OCCASIONAL_WORDS = frozenset(
    {
        "save",
        "checkpoint",
        "checkpointing",
        "ckpt",
        "export",
        "exporter",
        "exporters",
        "convert",
        "conversion",
        "warmup",
        "profile",
        "profiler",
        "benchmark",
        "benchmarks",
        "scripts",
        "finalize",
        "logging",
        "logger",
        "report",
        "summary",
        "summarize",
        "dump",
        "debug",
        "digest",
        "analyzer",
        # test harnesses shipped in a package: checking a kernel's output against a reference,
        # and the reference (oracle) implementations they check against
        "validate",
        "tester",
        "reference",
        "oracle",
        "golden",
    }
)
# The words of test harnesses and reference (oracle) implementations alone: HTD202 keeps
# reporting validators and checkpointing helpers that run on every forward.
REFERENCE_WORDS = frozenset({"tester", "reference", "oracle", "golden"})


# Words that say a function drives a loop of steps (it runs once around
# them), or tunes a kernel (it runs each candidate once, at start-up or per new shape): judged
# only for code outside loops that no hot path reaches.
DRIVER_WORDS = frozenset({"loop", "autotune", "autotuner", "tune", "tuner", "tuning"})
# Parameters of a benchmark driver: a count of warm-up runs and one of timed runs
# (``run(..., warmup_iterations, iterations)``); it and what it defines run once per benchmark.
WARMUP_WORDS = frozenset({"warmup"})
TIMED_RUN_WORDS = frozenset({"iterations", "iters", "repeat", "repeats", "runs", "reps"})
# What a function makes when its name says it allocates (``create_tensors``,
# ``make_workspace``, ``_build_workspace``, ``allocate_buffers``, a quantization method's
# ``create_weights``, an engine's ``_allocate_kv_cache``): buffers and parameters made once and
# reused, or a test's inputs.
ALLOCATING_VERBS = frozenset({"create", "make", "build", "alloc", "allocate"})
ALLOCATED_WORDS = frozenset(
    {"tensors", "buffers", "buffer", "workspace", "workspaces", "weights", "params", "cache"}
)
# A function that prepares weights for a kernel (``preprocess_mega_weights``,
# ``process_weights_after_loading``, ``pack_weights``): it runs once, after loading.
WEIGHT_VERBS = frozenset(
    {"preprocess", "prepare", "process", "convert", "pack", "repack", "shuffle", "swizzle"}
)
WEIGHT_WORDS = frozenset({"weight", "weights", "params", "parameters"})


def in_loop_body(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Inside a ``for``/``while`` body of the innermost function (not in a nested function,
    lambda or class, which the loop only defines), and not under a first-pass flag there
    (:func:`first_pass_branch`), whose body runs once per loop."""
    for i in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[i - 1], ancestors[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(parent, cst.If) and child is parent.body and first_pass_branch(parent):
            return False
        if isinstance(parent, (cst.For, cst.While)) and child is parent.body:
            return True
    return False


def first_pass_branch(node: cst.If) -> bool:
    """``if prefill: prefill = False ...`` (or ``if not done: done = True``): a local flag that
    the branch itself flips to a constant, so in a loop the branch runs on one iteration."""
    test = node.test
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if not isinstance(test, cst.Name):
        return False
    lines = node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]
    for line in lines:
        if not isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            continue
        for small in line.body:
            if (
                isinstance(small, cst.Assign)
                and isinstance(small.value, cst.Name)
                and small.value.value in ("True", "False")
                and any(
                    isinstance(t.target, cst.Name) and t.target.value == test.value
                    for t in small.targets
                )
            ):
                return True
    return False


def occasional(path: str, ancestors: Sequence[cst.CSTNode], cold: bool = False) -> bool:
    """Whether the file (or its folder), or a function or class around the node, is named for
    something that runs now and then (:data:`OCCASIONAL_WORDS`); for ``cold`` code (outside
    loops, on no hot path), also for a driver of steps or a tuner (:data:`DRIVER_WORDS`), a
    function named for allocating buffers or preparing weights, and a benchmark driver (a
    function with warm-up and timed-run counts among its parameters)."""
    words = _code_words(path, ancestors)
    known = (OCCASIONAL_WORDS | DRIVER_WORDS) if cold else OCCASIONAL_WORDS
    if words & known or _environment_check(path, ancestors):
        return True
    return cold and any(
        isinstance(node, cst.FunctionDef) and (_setup(node) or _benchmark(node))
        for node in ancestors
    )


def setup_function(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether a function around the node is named for allocating buffers or preparing weights
    (see :func:`_setup`): its loops (over layers, experts, ranks) run once per set-up too."""
    return any(isinstance(node, cst.FunctionDef) and _setup(node) for node in ancestors)


def _setup(function: cst.FunctionDef) -> bool:
    """Whether the function's name says it allocates buffers (``create_gather_gemm_tensors``,
    ``make_workspace``) or prepares weights for a kernel (``preprocess_mega_weights``, or a
    ``pack_*`` that takes the layer: ``pack_gpu(self, linear: nn.Module, ...)``)."""
    words = [w.lower() for w in function.name.value.split("_") if w]
    if not words:
        return False
    if words[0] in ALLOCATING_VERBS and words[-1] in ALLOCATED_WORDS:
        return True
    return words[0] in WEIGHT_VERBS and (bool(WEIGHT_WORDS & set(words)) or _takes_layer(function))


def _takes_layer(function: cst.FunctionDef) -> bool:
    """Whether a parameter is annotated as a module (``linear: nn.Module``)."""
    for param in (*function.params.params, *function.params.kwonly_params):
        annotation = param.annotation
        if annotation is None:
            continue
        node = annotation.annotation
        name = node.attr.value if isinstance(node, cst.Attribute) else ""
        if isinstance(node, cst.Name):
            name = node.value
        if name in ("Module", "Linear"):
            return True
    return False


def _benchmark(function: cst.FunctionDef) -> bool:
    """Whether ``function`` takes a count of warm-up runs and one of timed runs
    (``warmup_iterations``, ``iterations``; not a learning rate's ``lr_warmup_steps``)."""
    words = [
        name_words(p.name.value) for p in (*function.params.params, *function.params.kwonly_params)
    ]
    counts = TIMED_RUN_WORDS | WARMUP_WORDS | {"num", "n", "count"}
    return any(w & WARMUP_WORDS and w <= counts for w in words) and any(
        w & TIMED_RUN_WORDS and w <= counts and not w & WARMUP_WORDS for w in words
    )


# Words of code that saves or exports state (``save_lora_checkpoint``, ``export_weights``):
# its loops over a state dict copy values to the host because the file needs them, once per save.
SAVING_WORDS = frozenset({"save", "saving", "export", "exporter"})


def saving_code(path: str, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the module's, a class's or a function's name around the code says it saves or
    exports state (:data:`SAVING_WORDS`), or gathers a state dict (``gather_cpu_state_dict``:
    what a checkpoint writes)."""
    words = _code_words(path, ancestors)
    return bool(words & SAVING_WORDS) or {"state", "dict"} <= words


def showing_code(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the function around the code is named for showing or recording values
    (``visualize_predictions``, ``log_samples``, ``_debug_stats``): the host copies in its
    loops are what the plot or the log needs, and nothing is hot through such a name."""
    function = next((n for n in reversed(ancestors) if isinstance(n, cst.FunctionDef)), None)
    name = function.name.value if function is not None else ""
    return logging_name(name) or diagnostic_name(name)


def reference_code(path: str, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the module's, a class's or a function's name around the code says it is a test
    harness or a reference implementation (:data:`REFERENCE_WORDS`, or ``ref`` beside ``impl``:
    ``attention_forward_pytorch_ref_impl`` in ``fwd_ref.py``; ``ref`` alone also names an RL
    reference model, whose forward runs per step)."""
    words = _code_words(path, ancestors)
    return bool(words & REFERENCE_WORDS) or {"ref", "impl"} <= words


# Names of environment and sanity checks, run once at start-up or on demand: lmdeploy's
# ``check_env/triton.py`` makes two small tensors on the GPU to see that a kernel runs.
ENVIRONMENT_CHECKS = ("check_env", "env_check", "collect_env", "check_environment", "sanity_check")


def _environment_check(path: str, ancestors: Sequence[cst.CSTNode]) -> bool:
    names = [p.lower() for p in path.replace("\\", "/").rsplit("/", 2)[-2:]]
    names += [
        n.name.value.lower() for n in ancestors if isinstance(n, (cst.FunctionDef, cst.ClassDef))
    ]
    return any(check in name for name in names for check in ENVIRONMENT_CHECKS)


def _code_words(path: str, ancestors: Sequence[cst.CSTNode]) -> set[str]:
    """The words of the module's folder and file names and of the classes and functions
    around the code."""
    words: set[str] = set()
    for part in path.replace("\\", "/").rsplit("/", 2)[-2:]:
        words |= name_words(part.removesuffix(".py"))
    for node in ancestors:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            words |= name_words(node.name.value)
    return words


def _none_tests(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What ``test`` requires to be None: ``X`` of ``X is None``, each such ``X`` of an
    ``and`` of tests (``if lang is None and probs is None:``, session 36)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _none_tests(test.left) + _none_tests(test.right)
    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        return [test.left]
    return []


def set_once(
    ancestors: Sequence[cst.CSTNode],
    module: cst.Module,
    provenance: Provenance,
    frame: Frame,
) -> bool:
    """Under ``if X is None:`` where the statement assigns ``X`` (also a class attribute
    ``Cls.attr``, which run-once guards of ``self`` do not cover), or where ``X`` is a local
    name bound to a cache lookup ``cache.get(key)``: the value is made on a cache miss only.
    Not for a parameter (``if weights is None: weights = ...``): its default is made on every
    call that does not pass one; nor for an entry of a mapping the function is given
    (:func:`per_call_mapping`: ``params.get("host_lens")``), made once per call."""
    statement = next(
        (n for n in reversed(ancestors) if isinstance(n, cst.SimpleStatementLine)), None
    )
    target = None
    if statement is not None and len(statement.body) == 1:
        assign = statement.body[0]
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
            target = module.code_for_node(assign.targets[0].target)
    for node in ancestors:
        if not isinstance(node, cst.If):
            continue
        for tested in _none_tests(node.test):
            if (
                target is not None
                and module.code_for_node(tested) == target
                and not _parameter_default(tested, frame)
                and not per_call_lookup(tested, provenance, frame)
            ):
                return True
            if isinstance(tested, cst.Name) and _cache_lookup(tested, provenance, frame):
                return True
    return False


def _parameter_default(tested: cst.BaseExpression, frame: Frame) -> bool:
    """``if weights is None: weights = ...`` of a parameter: a default made on every call
    that does not pass one (kornia 0.8's grayscale weights), not once."""
    function = frame.function
    if not isinstance(tested, cst.Name) or not isinstance(function, cst.FunctionDef):
        return False
    params = function.params
    return any(
        p.name.value == tested.value
        for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    )


def _cache_lookup(name: cst.Name, provenance: Provenance, frame: Frame) -> bool:
    """``name`` is bound (somewhere in the function) to ``<mapping>.get(key)`` of a mapping
    that outlives the call (not :func:`per_call_mapping`)."""
    values = provenance.bindings(frame).of(name.value)
    return any(
        isinstance(v, cst.Call)
        and isinstance(v.func, cst.Attribute)
        and v.func.attr.value == "get"
        and len(v.args) == 1
        and not per_call_mapping(v.func.value, frame)
        for v in values
        if v is not None
    )


def on_cache_miss(
    ancestors: Sequence[cst.CSTNode], module: cst.Module, provenance: Provenance, frame: Frame
) -> bool:
    """In the body of ``if x is None:`` where ``x = cache.get(key)`` and the function stores
    into that mapping (``cache[key] = ...``): the code runs on a cache miss only, once per key
    (``ent = self._scratch.get(key)`` / ``if ent is None: ... self._scratch[key] = ent``).
    A lookup that is never stored back (``kwargs.get("ids")``) is a default made every call."""
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    if function is None:
        return False
    for node, child in pairwise(ancestors):
        if not (
            isinstance(node, cst.If)
            and child is node.body
            and isinstance(node.test, cst.Comparison)
            and len(node.test.comparisons) == 1
            and isinstance(node.test.comparisons[0].operator, cst.Is)
            and isinstance(node.test.comparisons[0].comparator, cst.Name)
            and node.test.comparisons[0].comparator.value == "None"
            and isinstance(node.test.left, cst.Name)
        ):
            continue
        for value in provenance.bindings(frame).of(node.test.left.value):
            if (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "get"
                and len(value.args) == 1
                and module.code_for_node(value.func.value) in _stored_mappings(function, module)
                and not per_call_mapping(value.func.value, frame)
            ):
                return True
    return False


class _StoredMappings(cst.CSTVisitor):
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.stored: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Subscript):
            self.stored.add(self.module.code_for_node(node.target.value))


def _stored_mappings(function: cst.FunctionDef, module: cst.Module) -> set[str]:
    """The mappings ``function`` stores an item into (``cache[key] = v``), by their code."""
    collector = _StoredMappings(module)
    visit_read_only(function, collector)
    return collector.stored


# Words of a test that guards code run only while exporting or tracing a model.
EXPORT_TESTS = ("onnx", "is_tracing", "is_scripting", "is_exporting", "is_compiling")


def export_branch(ancestors: Sequence[cst.CSTNode], module: cst.Module) -> bool:
    """In the body of ``if torch.onnx.is_in_onnx_export():`` (or a test of tracing or
    scripting): the tensors are part of the exported graph, not per-step copies."""
    for i in range(len(ancestors) - 1):
        node, child = ancestors[i], ancestors[i + 1]
        if isinstance(node, cst.If) and child is node.body:
            test = module.code_for_node(node.test)
            if any(word in test for word in EXPORT_TESTS):
                return True
    return False


def pipeline_code(path: str, ancestors: Sequence[cst.CSTNode]) -> bool:
    """A method of a pipeline (a class whose name or a base's ends with ``Pipeline``) or a
    function of a ``pipelines/<name>/pipeline_*.py`` module: it runs once per request, around
    the loop of steps, when nothing is queued on the device (see ``hot_paths``)."""
    parts = path.replace("\\", "/").rsplit("/", 2)
    if len(parts) == 3 and parts[0].endswith("pipelines") and parts[2].startswith("pipeline_"):
        return True  # diffusers' layout: pipelines/<name>/pipeline_<name>.py
    for node in ancestors:
        if isinstance(node, cst.ClassDef):
            names = [node.name.value] + [
                b.value.attr.value if isinstance(b.value, cst.Attribute) else b.value.value
                for b in node.bases
                if isinstance(b.value, (cst.Name, cst.Attribute))
            ]
            if any(n.endswith("Pipeline") for n in names):
                return True
    return False


# Methods of attention backends and their metadata builders that run once per batch, before
# the model's forward: flashinfer's wrappers' ``plan``/``begin_forward``, serving engines'
# ``init_forward_metadata``/``build_metadata``. Not hot paths by ``hot_paths``' entry points
# (those are for syncs); for host copies, per batch is per step.
PER_BATCH_METHODS = frozenset(
    {"plan", "begin_forward", "init_forward_metadata", "build_metadata", "prepare_metadata"}
)


def per_batch_method(ancestors: Sequence[cst.CSTNode]) -> str | None:
    """The name of the innermost function when it is one of :data:`PER_BATCH_METHODS`."""
    for node in reversed(ancestors):
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            if isinstance(node, cst.FunctionDef) and node.name.value in PER_BATCH_METHODS:
                return node.name.value
            return None
    return None


def varies_with_loop(node: cst.BaseExpression, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether ``node`` mentions a variable of a ``for`` loop around it in its function
    (``torch.device("xpu", i)`` in ``for i in range(n)``): a different device, or a different
    value, per iteration, not the same copy repeated."""
    loop_names: set[str] = set()
    for ancestor in reversed(ancestors):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        if isinstance(ancestor, cst.For):
            loop_names |= target_names(ancestor.target)
    return bool(loop_names & names_in(node))


def mentions_loop_names(ancestors: list[cst.CSTNode], data: cst.BaseExpression) -> bool:
    """Whether ``data`` reads a name that an enclosing ``for`` or comprehension binds."""
    bound: set[str] = set()
    for node in ancestors:
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.For):
            targets.append(node.target)
        elif isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
            clause: cst.CompFor | None = node.for_in
            while clause is not None:
                targets.append(clause.target)
                clause = clause.inner_for_in
        for target in targets:
            bound |= {n.value for n in names_read(target)}
    return bool(bound & {n.value for n in names_read(data)})

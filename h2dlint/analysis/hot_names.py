"""The names that make a function hot: entry points (``forward``, ``step``, ``execute_model``,
request handlers) and the words of a name (step, forward, attention, hooks, metadata builders),
with the reason a finding gives; and the words that say a function does not run per step.
Split out of ``hot_paths.py``."""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.backward_calls import backward_pass_name
from h2dlint.analysis.kv_cache_ops import kv_cache_op_reason
from h2dlint.analysis.loss_names import loss_reason
from h2dlint.analysis.per_step_names import per_step_state_builder, step_metadata_name
from h2dlint.imports import dotted_name

if TYPE_CHECKING:
    pass

# Entry points by name, with why each runs per step or per request (the reason findings give).
HOT_ENTRY_POINTS: dict[str, str] = {
    # modules, pipelines, samplers, compiled callables
    "forward": "a `forward()` runs on every call of the module",
    "__call__": "a `__call__()` runs on every call",
    # trainers (Lightning, HF Trainer, custom loops), optimizers, diffusion schedulers
    "step": "a `step()` runs once per step",
    "backward": "a `backward()` runs once per step (an engine's, or an autograd function's)",
    "training_step": "a `training_step()` runs once per batch",
    "validation_step": "a `validation_step()` runs once per batch",
    "test_step": "a `test_step()` runs once per batch",
    "predict_step": "a `predict_step()` runs once per batch",
    "train_step": "a `train_step()` runs once per batch",
    "eval_step": "an `eval_step()` runs once per batch",
    "prediction_step": "a `prediction_step()` runs once per batch",
    "compute_loss": "a `compute_loss()` runs once per batch",
    # inference engines and their schedulers
    "execute_model": "an `execute_model()` runs once per engine step",
    "prepare_inputs": "a `prepare_inputs()` runs once per engine step",
    "_prepare_inputs": "a `_prepare_inputs()` runs once per engine step",
    "prepare_model_inputs": "a `prepare_model_inputs()` runs once per engine step",
    "schedule": "a scheduler's `schedule()` runs once per engine step",
    "update_from_output": "a scheduler's `update_from_output()` runs once per engine step",
    "sample": "a `sample()` runs once per decoding step",
    "decode": "a `decode()` runs once per call",
    "prepare_inputs_for_generation": "a `prepare_inputs_for_generation()` runs once per "
    "decoding step",
    # iterators (data loader wrappers)
    "__next__": "an iterator's `__next__()` runs once per item it yields (a batch, for a "
    "data loader)",
    # request handlers
    "handle": "a `handle()` runs once per request",
    "handle_request": "a `handle_request()` runs once per request",
    "process_request": "a `process_request()` runs once per request",
}
# Words of a name (split at ``_``) that say the function runs per step or per forward pass,
# with the reason findings give. ``{}`` is the function's name.
STEP_WORD_REASON = "`{}()` runs once per step (its name says so)"
FORWARD_WORD_REASON = "`{}()` runs on every forward pass (its name says so)"
ATTENTION_WORD_REASON = "`{}()` runs in every attention call of a forward pass (its name says so)"
BACKWARD_WORD_REASON = "`{}()` runs in every backward pass (its name says so)"
HOOK_WORD_REASON = "`{}()` is (or makes) a forward hook, which runs on every forward pass"
ATTENTION_WORDS = frozenset({"attention", "attn"})
FORWARD_WORDS = frozenset({"forward", "fwd"})
# First words of names that configure, query or register, not run, a step or a forward:
# ``set_step``, ``get_step``, ``register_step_hook``, ``set_attention_backend``.
NOT_RUNNING_WORDS = frozenset(
    {
        "set",
        "get",
        "init",
        "reset",
        "register",
        "unregister",
        "patch",
        "parse",
        "num",
        "is",
        "has",
        "was",
        "should",
        "using",
        "check",
        "enable",
        "disable",
        "use",
        "supports",
        "total",
        "max",
        "min",
        # debugging aids: dumps, prints and plots of a step's values
        "dump",
        "print",
        "debug",
        "show",
        "plot",
        "visualize",
    }
)
# First words of functions that read values to show or record them (``log_metrics``,
# ``_log_stats``, ``print_summary``): a deliberate host read, so nothing is hot through them.
LOGGING_WORDS = frozenset({"log", "print", "dump", "report", "show", "display", "visualize"})
# ... unless the name is a computation's (``log_softmax``, ``log_probs``, ``log_sum_exp``).
COMPUTING_WORDS = frozenset({"softmax", "prob", "probs", "likelihood", "sum", "sigmoid", "det"})


# Words anywhere in a function's name that say it is a diagnostic aid, not the computation
# (``_debug_transformer_args``, ``record_probe``: an attention-mass probe switched on at launch;
# ``_probe_kernel``: a capability probe run once): nothing in it runs per step in a deployment.
DIAGNOSTIC_NAME_WORDS = frozenset({"debug", "probe"})


def diagnostic_name(name: str) -> bool:
    """Whether ``name`` says its function is a debugging or probing aid
    (:data:`DIAGNOSTIC_NAME_WORDS`, as a word between underscores)."""
    return not DIAGNOSTIC_NAME_WORDS.isdisjoint(name.lower().split("_"))


# Last words of functions named for the log they write (``train_step_logs``): no step itself.
LOG_LAST_WORDS = frozenset({"logs", "logging"})


def logging_name(name: str) -> bool:
    """Whether ``name`` says its function logs or prints values (see ``LOGGING_WORDS``), or
    writes logs (``train_step_logs``, not the logarithm ``ceil_log``)."""
    words = [w for w in name.lower().split("_") if w]
    if words and words[-1] in LOG_LAST_WORDS:
        return True
    return bool(words) and words[0] in LOGGING_WORDS and not COMPUTING_WORDS & set(words)


# Words of a class whose ``forward``/``__call__`` runs outside the steps: a wrapper traced for
# export (``CifPredictorV2Export``, ``...OnnxModel``), an evaluator run once per evaluation
# over a data set (``...Evaluator``, sentence-transformers' and fairseq2's).
OFFLINE_CLASS_WORDS = frozenset({"export", "exportable", "onnx", "evaluator"})


def offline_class(name: str | None) -> bool:
    """Whether a class named ``name`` is an export wrapper or an evaluator
    (:data:`OFFLINE_CLASS_WORDS` as words of its name): its entry points are no steps."""
    if not name:
        return False
    words = {w.lower() for w in re.split(r"[^a-zA-Z]+|(?<=[a-z])(?=[A-Z])", name) if w}
    return not OFFLINE_CLASS_WORDS.isdisjoint(words)


# Last words of names that set something up (``_msa_sparse_attention_init``,
# ``decode_step_setup``): they prepare what the step uses, they are not the step.
SETUP_LAST_WORDS = frozenset({"init", "initialize", "setup"})
# Hot only as methods of a class: a top-level ``__call__`` is no such thing.
METHOD_ONLY = frozenset({"forward", "__call__", "prepare_inputs_for_generation", "__next__"})
# Classes whose ``__call__`` runs once per request around a loop of steps.
PER_REQUEST_CLASS_WORDS = ("Pipeline",)
PER_REQUEST_REASON = "a pipeline's `__call__()` runs this loop once per step"
LOOPS = (cst.For, cst.While)
# Packages of test code (parts of a module's dotted name).
# (``tests/`` folders are not: they also hold reference models whose forward is a model's.)
TEST_PACKAGES = frozenset({"test_utils", "testing"})


def test_module(module: str | None, file_name: str) -> bool:
    """Whether the file is test code of its package (``pkg.test_utils.*``, ``pkg.testing.*``,
    and the two names pytest collects by default: ``test_*.py`` and ``*_test.py``, torchft's
    ``process_group_test.py``): what it runs per step is a test's, not production's."""
    parts = module.split(".") if module else [file_name.removesuffix(".py")]
    return (
        any(part in TEST_PACKAGES for part in parts[:-1])
        or parts[-1].startswith("test_")
        or parts[-1].endswith("_test")
    )


METADATA_REASON = "`{}()` builds the attention metadata of each step (its name says so)"
BUILDER_REASON = "an attention metadata builder's `build()` runs once per step"


# Words of a function's name that say it computes values for a log (``compute_data_metrics``,
# ``_batch_stats``): they go to the host by design.
METRICS_NAME_WORDS = frozenset({"metric", "metrics", "stats", "statistics"})


def metrics_name(name: str) -> bool:
    """Whether ``name`` says the function computes metrics (values bound for a logger)."""
    return not METRICS_NAME_WORDS.isdisjoint(name.lower().split("_"))


# First words of a driver named for what it does over a data set or a model
# (``eval_llama_with_attention_sink``, ``benchmark_attention``, ``export_attention``,
# ``benchmark_encoder_forward``: one verification forward per benchmark run): an ``attention``
# or ``forward`` word later in such a name is its subject, not its role in a forward pass.
DRIVER_FIRST_WORDS = frozenset({"eval", "evaluate", "benchmark", "bench", "export", "calibrate"})


# Words of a forward's name that say it is a reference implementation, not the forward pass.
REFERENCE_NAME_WORDS = frozenset({"reference", "ref", "oracle", "golden"})


def name_reason(name: str, method: bool) -> str | None:
    """Why a function runs per step or per forward pass by the words of its name: a ``step``
    word (``update_step_context``, ``decode_step``, ``_optimizer_step``), ``forward`` first
    or last (``forward_decode``, ``_attn_forward``, also spelled ``fwd``), a backward pass
    (``pc_backward``, ``fuser_backward``, ``_backward_pass``), a forward hook
    (``pre_process_fwd_hook``: the closures it makes run on every forward), or, for a
    top-level function, an ``attention``/``attn`` word (``_flash_varlen_attention``,
    ``_prepare_for_flash_attn_...``: attention backends run per layer and forward; neither
    word in a driver's name, ``eval_llama_with_attention_sink``, ``benchmark_encoder_forward``:
    :data:`DRIVER_FIRST_WORDS`). Not
    names that configure or query (``set_step``, ``get_attention_backend``, ``num_steps``),
    nor a forward named for the CPU (``forward_cpu``: the host implementation) or for a
    reference (``forward_reference``: kept for tests, the module's ``forward`` runs the fast
    path)."""
    words = [w for w in name.lower().split("_") if w]
    if logging_name(name):
        return None  # ``train_step_logs``: it logs the step's values, every N steps
    if step_metadata_name(name):
        return METADATA_REASON.format(name)
    if not words or words[0] in NOT_RUNNING_WORDS or words[-1] in SETUP_LAST_WORDS:
        return None
    if "step" in words and "initial" not in words:
        # ``_select_initial_step``: the first step size, chosen once per ODE solve (torchdiffeq
        # misc.py:35); ``tile_to_beam_size_after_initial_step``: once per beam search.
        return STEP_WORD_REASON.format(name)
    if (
        (words[0] in FORWARD_WORDS or words[-1] in FORWARD_WORDS)
        and "cpu" not in words
        and not REFERENCE_NAME_WORDS & set(words)
        and words[0] not in DRIVER_FIRST_WORDS
    ):
        # ``_cpu_forward``, ``forward_cpu``: the CPU implementation, on host tensors;
        # ``forward_reference``, ``ref_forward``: the oracle a kernel path is checked against;
        # ``benchmark_encoder_forward``, ``export_forward``: a driver whose subject is a forward.
        return FORWARD_WORD_REASON.format(name)
    if (
        backward_pass_name(name)
        and "cpu" not in words
        and not REFERENCE_NAME_WORDS & set(words)
        and words[0] not in DRIVER_FIRST_WORDS
    ):
        # ``pc_backward``, ``fuser_backward``: not ``backward_reference`` (an oracle), nor
        # ``benchmark_backward`` (a driver whose subject is a backward pass).
        return BACKWARD_WORD_REASON.format(name)
    if "hook" in words and FORWARD_WORDS & set(words):
        return HOOK_WORD_REASON.format(name)
    if not method and ATTENTION_WORDS & set(words) and words[0] not in DRIVER_FIRST_WORDS:
        return ATTENTION_WORD_REASON.format(name)
    if words[0] not in DRIVER_FIRST_WORDS and not REFERENCE_NAME_WORDS & set(words):
        # ``ppo_loss``: a loss runs per training batch; not ``compute_loss_metrics`` (a log's)
        loss = None if metrics_name(name) else loss_reason(name, words)
        return kv_cache_op_reason(name, words) or loss
    return None


def step_name(name: str) -> bool:
    """Whether ``name`` says its function takes one step (:func:`name_reason`'s ``step`` word:
    ``_adaptive_step``, ``train_step``; not ``set_step``, ``_select_initial_step``,
    ``num_steps``)."""
    return name_reason(name, True) == STEP_WORD_REASON.format(name)


STATE_BUILDER_REASON = "`{}()` builds the per-step state `{}` (the class's name says so)"


def state_builder_reason(name: str, cls: str | None) -> str | None:
    """Why a method runs once per step because it builds the state a serving engine makes for
    every step (see :func:`~h2dlint.analysis.once.per_step_state_builder`)."""
    if cls is None or not per_step_state_builder(name, cls):
        return None
    return STATE_BUILDER_REASON.format(f"{cls}.{name}", cls)


def matches(patterns: tuple[str, ...], name: str, qualified: str) -> bool:
    return any(
        fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(qualified, pattern)
        for pattern in patterns
    )


# The end of the reason a top-level function with an attention word in its name gets.
ATTENTION_TAIL = ATTENTION_WORD_REASON.split("{}", 1)[1]
# Return annotations of Python data built on the host (``list[list[int]]``, ``str``).
HOST_RETURN_TYPES = frozenset({"list", "List", "dict", "Dict", "str", "bytes", "set", "Set"})


def returns_host_data(function: cst.FunctionDef) -> bool:
    """Whether ``function`` is annotated to return Python data (a list, a dict, a string) with
    no tensor in it: it prepares requests on the host, it is no attention kernel."""
    returns = function.returns
    if returns is None:
        return False
    annotation = returns.annotation
    outer = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    name = dotted_name(outer) or ""
    if name.rsplit(".", 1)[-1] not in HOST_RETURN_TYPES:
        return False
    return "Tensor" not in cst.Module([]).code_for_node(annotation)

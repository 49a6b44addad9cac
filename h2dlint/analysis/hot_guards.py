"""Whether code on a hot path runs on every call: not under a run-once or tracing guard, not in
a debugging aid (``assert``, ``raise``, a debug or logging branch, a logging call's arguments,
a branch that ends by raising or warning), not in an arm for degenerate input (empty, NaN or
infinite values), not in a branch that knows which kind of device it is on, not in an arm only
a torch older than 2.0 takes, not once every N steps, and not in a row loop (HTD201's). HTD202
(a sync on a hot path) asks these.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.bindings import COMPREHENSIONS
from h2dlint.analysis.collection_tests import built_collection_test
from h2dlint.analysis.device_branches import (
    Resolve,
    after_cuda_exit,
    off_cuda_operand,
    off_cuda_part,
)
from h2dlint.analysis.divisible_gates import divisible_gate
from h2dlint.analysis.edge_cases import (
    degenerate_fallback,
    error_branch,
    lazy_message,
    raising_handler,
    reporting_handler,
)
from h2dlint.analysis.env_switches import diagnostic_switch, may_read_environment
from h2dlint.analysis.episode_ends import episode_end_test
from h2dlint.analysis.first_step_tests import first_step_test
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.gate_methods import gated_by_method
from h2dlint.analysis.host_fallbacks import host_copy_fallback
from h2dlint.analysis.loop_body import set_once
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.periodic_exits import after_periodic_exit
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.reference_helpers import in_reference_code
from h2dlint.analysis.settled_arms import settled_arm
from h2dlint.analysis.sync_basics import (
    RowLoop,
    has_modulo,
    leaves,
    periodic_test,
)
from h2dlint.analysis.syncs import row_loop, sync_of, zipped_loops
from h2dlint.analysis.torch_versions import old_torch_arm
from h2dlint.context import FileContext

# Calls whose arguments are only logged or printed.
LOGGING_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "log", "print", "write"}
)
# Second words of functions named ``log_*`` that compute, not log (``log_softmax``).
MATH_WORDS = frozenset({"softmax", "sigmoid", "sum", "prob", "probs", "det", "normal", "ndtr"})
# Guards of code that runs only while tracing or scripting, never in eager steps.
TRACING_GUARDS = frozenset({"is_tracing", "is_scripting", "is_compiling", "is_fx_tracing"})
# Words in an `if` test that say the branch is for debugging.
DEBUG_WORDS = (
    "debug",
    "verbose",
    "isenabledfor",
    "check_",
    "validate",
    "sanity",
    "device.type",
    "report",
    "should_log",
    "dump",
    "plot",
)


def runs_every_call(
    context: FileContext,
    node: cst.CSTNode,
    explicit: cst.Call | None,
    *,
    loops: bool = False,
    steps: cst.CSTNode | None = None,
    row_loops: bool = True,
    reason: str | None = None,
) -> bool:
    """Whether the code around ``node`` in its function runs on every call: not under a
    run-once or tracing guard, not on a cache miss (``if entry is None:`` of a lookup), not in
    a test harness or a reference implementation a kernel is checked against (by its names),
    not in a debugging aid, not in a row loop (HTD201).
    ``loops``: a ``while`` loop around it is a loop of steps, not HTD201's. ``steps``: a ``for``
    loop known to run device work on every iteration (a loop over batches, :mod:`device_loops`):
    what it walks are batches, not HTD201's rows. ``row_loops``: a sync of each row of a loop is
    HTD201's (False where HTD201 does not report the loop: then the sync is the caller's).
    ``reason``: why the function is hot; hot through its calls (``called from ...``), not in an
    arm that none of its calls takes (:mod:`settled_arms`)."""
    ancestors = context.ancestors
    if RunOnce.of(context).code(ancestors):
        return False
    provenance = Provenance.of(context)
    module_frame = Frame(context.module)

    def module_values(name: str) -> Sequence[cst.BaseExpression | None]:
        return provenance.bindings(module_frame).of(name)

    if in_reference_code(context, ancestors) or set_once(
        ancestors, context.module, provenance, provenance.current_frame()
    ):
        return False  # a test harness or reference, a value made on a cache miss
    if degenerate_fallback(ancestors, node):
        return False  # the arm for empty input or for NaN or infinite values
    if reason and reason.startswith("called ") and settled_arm(provenance, ancestors, node):
        return False  # an arm every call skips (``if n is None:``, and every call passes n)
    resolve = name_values(provenance)
    for i in range(len(ancestors) - 1, -1, -1):
        parent = ancestors[i]
        if isinstance(parent, cst.FunctionDef):
            return True
        child = ancestors[i + 1] if i + 1 < len(ancestors) else node
        if isinstance(parent, (cst.Assert, cst.Raise)) or (
            isinstance(parent, cst.While) and not loops
        ):
            return False  # a debugging aid, an error path, HTD201's loop
        if (
            isinstance(parent, cst.If)
            and child is parent.body
            and (debug_or_tracing(provenance, parent.test) or error_branch(parent))
        ):
            return False  # a debugging branch, or one that raises or warns: the check failed
        if isinstance(parent, cst.Call) and logging_call(parent) and not debug_call(parent):
            return False  # a log the run asked for; a debug log's arguments are read anyway
        if isinstance(parent, cst.ExceptHandler) and (
            reporting_handler(parent) or raising_handler(parent)
        ):
            return False  # the fallback after a failure the handler reports, or its message
        if isinstance(parent, cst.Lambda) and lazy_message(parent):
            return False  # ``check(ok, lambda: f"got {x.item()}")``: formatted on failure
        if (
            isinstance(parent, cst.IfExp)
            and child is not parent.test
            and device_type_test(provenance, parent.test)
        ):
            return False  # ``x.cpu() if x.device.type == "cpu" else x``
        if isinstance(parent, (cst.If, cst.IfExp)) and off_cuda_part(parent, child, resolve):
            return False  # the ``else`` of ``if x.device.type in {"cpu", "cuda"}:``
        if old_torch_arm(parent, child, module_values):
            return False  # the ``else`` of ``if digit_version(torch.__version__) > ...('1.6')``
        if isinstance(parent, cst.If) and host_copy_fallback(parent, child, node):
            return False  # ``if src.device.type == "cpu": h = src.tolist() else: h = x.cpu()...``
        if isinstance(parent, cst.BooleanOperation) and off_cuda_operand(parent, child, resolve):
            return False  # ``not x.is_cuda and int(x.max()) >= n``
        if isinstance(parent, cst.IndentedBlock) and after_cuda_exit(parent, child):
            return False  # after ``if x.is_cuda: return ...``
        if isinstance(parent, cst.IndentedBlock) and after_periodic_exit(parent, child):
            return False  # after ``if not self.should_log(step): return``
        if isinstance(parent, cst.IndentedBlock) and after_cache_lookup(parent, child):
            return False  # after ``for key, value in memo: if key == k: return value``
        if isinstance(parent, cst.If) and child is parent.body and periodic_test(parent.test):
            return False  # once every N calls or iterations (``if step % 100 == 0:``)
        if (
            isinstance(parent, cst.If)
            and child is parent.body
            and periodic_flag(parent.test, resolve)
        ):
            return False  # ``is_log_step = step % n == 0`` ... ``if show and is_log_step:``
        if gated_by_method(parent, child, ancestors[:i]):
            return False  # ``if self._should_log():`` of a method returning ``step % n == 0``
        if isinstance(parent, cst.If) and child is parent.body and first_step_test(parent.test):
            return False  # the first step's set-up (``if group["step"] == 0:``)
        if (
            isinstance(parent, cst.If)
            and child is parent.body
            and episode_end_test(provenance, parent.test, provenance.current_frame())
        ):
            return False  # once per episode (``if self.day == self.max_step:``)
        if (
            explicit is not None
            and row_loops
            and isinstance(parent, (cst.For, *COMPREHENSIONS))
            and parent is not steps
            and any(sync_of(explicit, loop) is not None for loop in row_loops_of(parent))
        ):
            return False  # HTD201's
    return True


def row_loops_of(node: cst.CSTNode) -> list[RowLoop]:
    """How a loop (a ``for`` statement or a comprehension) walks tensors: its row loop, or
    one per argument of the ``zip`` it iterates."""
    if isinstance(node, cst.For):
        iterable, target = node.iter, node.target
    else:
        for_in = getattr(node, "for_in", None)
        if not isinstance(for_in, cst.CompFor):
            return []
        iterable, target = for_in.iter, for_in.target
    loop = row_loop(iterable, target)
    return [loop] if loop is not None else zipped_loops(iterable, target)


def logging_call(call: cst.Call) -> bool:
    """A call that logs or prints values, or a testing assertion (``torch.testing.assert_close``,
    ``np.testing.assert_allclose``, ``self.assertEqual``: a check, like an ``assert``)."""
    func = call.func
    if _assertion(func):
        return True
    if isinstance(func, cst.Name):
        # ``print(...)``, and functions named for logging (``log_eviction(...)``,
        # ``print_stats(...)``), not math named ``log`` (``log_softmax``)
        words = func.value.lower().split("_")
        return func.value in ("print", "warn") or (
            len(words) > 1 and words[0] in ("log", "print", "warn") and words[1] not in MATH_WORDS
        )
    if isinstance(func, cst.Attribute) and func.attr.value in LOGGING_METHODS:
        base = func.value
        text = base.value if isinstance(base, cst.Name) else ""
        if isinstance(base, cst.Attribute):
            text = base.attr.value
        return any(word in text.lower() for word in ("log", "warn", "writer", "stdout", "stderr"))
    return False


def debug_call(call: cst.Call) -> bool:
    """``logger.debug(msg, x.tolist())``: a logger's debug-level call. Python evaluates its
    arguments on every call, also when debug logging is off (the default) and the message is
    dropped, so a sync in them is paid every time for nothing (session 36: nemo-automodel 0.5
    read two masks with ``.tolist()`` for a debug line on every attention call; 0.6 moved the
    call under ``if logger.isEnabledFor(logging.DEBUG):``, a guard that still exempts it)."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value == "debug" and logging_call(call)


def _assertion(func: cst.BaseExpression) -> bool:
    """``assert_close``, ``assert_allclose``, ``assertEqual``: a testing assertion's name."""
    if isinstance(func, cst.Attribute):
        func = func.attr
    if not isinstance(func, cst.Name):
        return False
    name = func.value
    return name.startswith("assert_") or (name.startswith("assert") and name[6:7].isupper())


DEVICE_TYPE_WORDS = ("device.type", ".is_cpu", ".is_cuda", 'device == "cpu"', "device == 'cpu'")


def name_values(provenance: Provenance) -> Resolve:
    """The values of a name that may reach its use in the current function (for
    :mod:`device_branches`: ``is_cuda = device.type == "cuda"`` ... ``if not is_cuda:``)."""
    frame = provenance.current_frame()
    return lambda name: provenance.bindings(frame).reaching(name)


def periodic_flag(test: cst.BaseExpression, resolve: Resolve, depth: int = 0) -> bool:
    """Whether an ``if`` test holds only on the steps of a period through a local flag: a name
    every binding of which that reaches the test holds a remainder test (``is_log_step =
    self.log_freq > 0 and (self.step % self.log_freq == 0)``, then ``if is_log_step:``), also
    as an operand of an ``and`` (``if self._pbar_enabled and is_log_step:``: neuracore 19.0.0's
    trainer reads the loss for its progress bar there, session 51). An ``or`` holds on every
    step unless both sides are periodic; a negated flag (``if not is_log_step:``) is the other
    steps' branch; a flag bound to a mere switch (``log_freq > 0 and show``) is no period."""
    if isinstance(test, cst.BooleanOperation):
        left = periodic_flag(test.left, resolve, depth)
        right = periodic_flag(test.right, resolve, depth)
        return (left or right) if isinstance(test.operator, cst.And) else (left and right)
    if not isinstance(test, cst.Name) or depth >= 3:
        return False
    values = resolve(test)
    return bool(values) and all(
        v is not None
        and (has_modulo(v) or divisible_gate(v) or periodic_flag(v, resolve, depth + 1))
        for v in values
    )


def device_type_test(provenance: Provenance, test: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether a test asks which kind of device a tensor is on (``x.device.type == "cpu"``,
    ``x.is_cuda``, or a name bound only to such tests): each branch then knows where it is."""
    if isinstance(test, cst.UnaryOperation):
        return device_type_test(provenance, test.expression, depth)
    if isinstance(test, cst.Name) and depth < 3:
        frame = provenance.current_frame()
        values = provenance.bindings(frame).reaching(test)
        return bool(values) and all(
            v is not None and device_type_test(provenance, v, depth + 1) for v in values
        )
    code = provenance.context.module.code_for_node(test)
    return any(word in code for word in DEVICE_TYPE_WORDS)


def periodic_steps_only(ancestors: list[cst.CSTNode]) -> bool:
    """Whether the innermost function around ``ancestors`` reaches them only past an early
    exit of :func:`after_periodic_exit` (in any block around them)."""
    for i in range(len(ancestors) - 1, 0, -1):
        parent = ancestors[i - 1]
        if isinstance(parent, cst.FunctionDef):
            return False
        if isinstance(parent, cst.IndentedBlock) and after_periodic_exit(parent, ancestors[i]):
            return True
    return False


def past_cache_lookup(ancestors: list[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` (with its ``ancestors``) runs only when a cache lookup before it in
    its function missed (:func:`after_cache_lookup`)."""
    child = node
    for parent in reversed(ancestors):
        if isinstance(parent, cst.FunctionDef):
            return False
        if isinstance(parent, cst.IndentedBlock) and after_cache_lookup(parent, child):
            return True
        child = parent
    return False


# Words of the name of a collection that keeps results for reuse.
_CACHE_WORDS = ("memo", "cache")


def after_cache_lookup(block: cst.IndentedBlock, child: cst.CSTNode) -> bool:
    """Whether a ``for`` loop before ``child`` in ``block`` looks a result up in a cache and
    returns it when found (``for held, plan in memo: if held == key: return plan``): what
    follows runs on a miss only, once per new input."""
    for statement in block.body:
        if statement is child:
            return False
        if not isinstance(statement, cst.For):
            continue
        text = cst.Module([]).code_for_node(statement.iter).lower()
        if not any(word in text for word in _CACHE_WORDS):
            continue
        body = statement.body
        if isinstance(body, cst.IndentedBlock) and any(
            isinstance(inner, cst.If) and _exits(inner) for inner in body.body
        ):
            return True
    return False


def _exits(branch: cst.If) -> bool:
    """Whether the body of ``branch`` ends by leaving its block (``return``, ``continue``...)."""
    return bool(branch.body.body) and leaves(branch.body.body[-1])


def debug_or_tracing(provenance: Provenance, test: cst.BaseExpression) -> bool:
    """Whether an `if` test says its body is for debugging, runs only while tracing, or only
    on another backend (``if x.device.type == "mps":``, a workaround for missing kernels)."""
    if isinstance(test, cst.Call):
        qualified = provenance.qualify(test.func) or ""
        if qualified.rpartition(".")[2] in TRACING_GUARDS:
            return True
    code = provenance.context.module.code_for_node(test).lower()
    if any(word in code for word in DEBUG_WORDS):
        # not ``if cuda_tensors_to_validate:``, a test of work to do (collection_tests)
        return not built_collection_test(provenance, test, provenance.current_frame())
    if not may_read_environment(provenance.context.source):
        return False
    function = provenance.current_frame().function
    return diagnostic_switch(
        test, provenance.context.module, function if isinstance(function, cst.FunctionDef) else None
    )

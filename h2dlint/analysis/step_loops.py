"""Calls made in a loop of steps: a function of the project called inside a ``while``/``for`` loop
whose body also calls a step of its own by name (an engine's ``while True:`` loop around
``self.async_step(...)``, a trainer's loop around ``self.training_step(batch)``) runs once per
step, although the function holding the loop (``run_engine``, ``fit``) is no step by its name.

The project index (:mod:`h2dlint.project.callers`) knows who calls a function and the line of
the call, not the loops around it: the caller's module is read again here, with CPython's
``ast``, only for a function a rule asks about that nothing else makes hot, and what was read is
kept with the module's summary (part ``steps``), so that a later run reads it from there. A call
under a branch taken once every N steps (``if step % 100 == 0:``, ``if self.should_log(step):``)
is not per step.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from h2dlint.analysis.filled_caches import cache_fill_lines
from h2dlint.analysis.first_steps import first_step_lines
from h2dlint.analysis.getattr_memos import getattr_memo_lines
from h2dlint.analysis.period_words import PERIOD_WORDS, STEP_COUNTER_WORDS
from h2dlint.analysis.self_tests import ast_self_tests
from h2dlint.project.ast_walk import child_nodes
from h2dlint.project.summary import dotted, top_functions

if TYPE_CHECKING:
    from h2dlint.project.callers import Caller
    from h2dlint.project.index import ProjectIndex

# Whether a function (name, class, the class's bases) runs per step by its name (True), may
# (False), or is cold (None): :meth:`HotPaths.hot_name`.
HotName = Callable[[str, str | None, tuple[str, ...]], "bool | None"]

# A receiver whose ``step()`` is host bookkeeping, not a step of the model (an LR scheduler's).
_HOST_STEPPERS = ("sched", "lr", "progress", "pbar", "bar", "timer", "profiler", "prof")
# Calls that run a step whatever the loop around them (besides names with a ``step`` word that
# :func:`~h2dlint.analysis.hot_names.name_reason` takes: ``step``, ``async_step``,
# ``training_step``; not ``set_step``, ``num_steps``).
_STEP_CALLS = frozenset({"forward", "execute_model"})
# Words of a branch test taken once every N steps or for debugging, not on every step.
# (a word of the test: ``should_log``, ``log_num_zeros``; not ``should_launch``, ``logits``).
# A validation or evaluation pass is run now and then too (``if self.validator.should_validate(
# self.step):``, session 24, torchtitan): its own loop over batches stays hot in it.
_OCCASIONAL_WORDS = frozenset(
    {
        *("log", "logging", "save", "eval", "checkpoint", "debug", "verbose", "profile"),
        *("validate", "validation", "evaluate", "evaluation"),
    }
)

# Words of a comparison with an interval (``(i - 1) * n // test_interval < i * n //
# test_interval``, ``step - last >= eval_every``): taken once every so many steps.
_PERIOD_WORDS = frozenset(PERIOD_WORDS)

# Per function ("name" or "Class.name"): its loops of steps, each as [first line, last line, the
# step it calls, the line ranges [first, last] under an occasional branch].
_Loops = list[list[Any]]
_Ranges = list[list[int]]
# The summary part ``steps``: {"loops": {function: _Loops}, "guarded": {function: _Ranges}}.
_Steps = dict[str, dict[str, Any]]


# Calls within the function's own module followed up to a caller in a loop of steps.
MAX_HOME_HOPS = 1


def step_loop_reason(
    project: ProjectIndex, qualified: str, hot_name: HotName, hops: int = 0
) -> str | None:
    """Why the function or method ``qualified`` runs per step: a function of the project
    calls it inside a loop of steps (see the module docs), or a function of its own module
    that is so called calls it (:data:`MAX_HOME_HOPS` such hops: an engine's step split into
    helpers of one class, session 31: OpenNMT-py's translator loops over ``update_finished()``,
    which calls ``self.beams_non_finished(i, ...)`` per sentence); None when no known caller
    does."""
    index = project.caller_index()
    home: list[Caller] = []
    module = _home_module(project, qualified)
    for caller in index.callers(qualified):
        if hot_name(caller.name, caller.cls, caller.bases) is None:
            continue  # a cold caller (run once by its name, a logger): nothing is hot through it
        if caller.module == module and caller.qualified != qualified:
            home.append(caller)
        loops = _steps_of(project, caller.module)["loops"].get(_key(caller.name, caller.cls))
        for first, last, step, occasional in loops or ():
            if first <= caller.line <= last and not _within(caller.line, occasional):
                where = f"{caller.cls}.{caller.name}" if caller.cls else caller.name
                return (
                    f"called in the loop of `{where}()` in {caller.module}, which runs "
                    f"`{step}()` on every iteration"
                )
    if hops >= MAX_HOME_HOPS:
        return None
    for caller in home:
        if occasional_call(project, caller):
            continue
        reason = step_loop_reason(project, caller.qualified, hot_name, hops + 1)
        if reason is not None:
            where = f"{caller.cls}.{caller.name}" if caller.cls else caller.name
            return f"called from `{where}()`, {reason}"
    return None


def _home_module(project: ProjectIndex, qualified: str) -> str:
    from h2dlint.project.call_resolution import defining_module

    return defining_module(qualified, project)


def _key(name: str, cls: str | None) -> str:
    return f"{cls}.{name}" if cls else name


def _within(line: int, ranges: _Ranges) -> bool:
    return any(first <= line <= last for first, last in ranges)


_NO_STEPS: _Steps = {"loops": {}, "guarded": {}}


def _steps_of(project: ProjectIndex, module: str) -> _Steps:
    """The part ``steps`` of ``module``'s summary (empty when it cannot be read or parsed)."""
    found: _Steps | None = project.caller_index().tree_part(module, "steps", _steps)
    return found if found is not None else _NO_STEPS


def _steps(tree: ast.Module) -> _Steps:
    """Per top-level function and method of a top-level class: its loops of steps, and the
    lines under its branches taken every N steps or for debugging (both read from one list of
    the function's own nodes)."""
    functions = {_key(f.name, cls): f for f, cls in top_functions(tree)}
    loops: dict[str, _Loops] = {}
    guarded: dict[str, _Ranges] = {}
    self_tests = ast_self_tests(tree)  # a module's own test(): its loops are cases, not steps
    for function, cls in top_functions(tree):
        key = _key(function.name, cls)
        if cls is None and function.name in self_tests:
            continue
        nodes = _own_nodes(function.body)
        loops[key] = _loops_in(nodes, functions, cls)
        guarded[key] = _occasional_in(nodes) + _past_periodic_exits(function, nodes)
        guarded[key] += first_step_lines(nodes)
        guarded[key] += cache_fill_lines(nodes)  # ``if key not in cache: self._fill(key, cache)``
        guarded[key] += getattr_memo_lines([function, *nodes])  # ``getattr(o, "w", None)`` memo
    return {
        "loops": {k: v for k, v in loops.items() if v},
        "guarded": {k: v for k, v in guarded.items() if v},
    }


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef
_LOOPS = (ast.While, ast.For, ast.AsyncFor)


def _loops_in(nodes: list[ast.AST], functions: dict[str, _Function], cls: str | None) -> _Loops:
    """The loops of steps among a function's own ``nodes``."""
    loops: _Loops = []
    for node in nodes:
        if isinstance(node, _LOOPS):
            step = (
                _step_called(node.body)
                or _step_through_callee(node.body, functions, cls)
                or _decoding_step(node)
                or _model_while(node)
            )
            if step is not None:
                last = node.end_lineno or node.lineno
                occasional = _occasional_lines(node.body) + first_step_lines([node], True)
                loops.append([node.lineno, last, step, occasional])
    return loops


def _own_nodes(body: list[ast.stmt], loops: bool = True) -> list[ast.AST]:
    """The nodes of a function's body, not of the functions and classes defined in it (nor,
    without ``loops``, of the loops in it: what runs once per iteration of the body)."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)) or (
            not loops and isinstance(node, _LOOPS)
        ):
            continue
        stack.extend(child_nodes(node))
    return found


def _step_called(body: list[ast.stmt]) -> str | None:
    """The name of a step the loop body calls on every iteration (``self.async_step``,
    ``engine.step``, ``self.training_step``, ``optimizer.step``; not a scheduler's
    ``step()``)."""
    from h2dlint.analysis.hot_names import name_reason

    occasional = _occasional_lines(body)
    for node in _own_nodes(body, loops=False):  # an inner loop's step is no step of this loop
        if not isinstance(node, ast.Call) or _within(node.lineno, occasional):
            continue
        func = node.func
        if isinstance(func, ast.Attribute):
            name, method = func.attr, True
            if name == "step" and any(
                word in ast.unparse(func.value).lower() for word in _HOST_STEPPERS
            ):
                continue
        elif isinstance(func, ast.Name):
            name, method = func.id, False
        else:
            continue
        if name in _STEP_CALLS or (
            "step" in name.lower().split("_") and name_reason(name, method) is not None
        ):
            return name
    return None


def _decoding_step(loop: ast.While | ast.For | ast.AsyncFor) -> str | None:
    """The model call that makes ``loop`` a decoding or sampling loop: a ``for`` loop over a
    ``range`` of steps whose own body calls the model or a part of it by the callee's name
    (``for step in range(strategy.max_length):`` around ``self.model.decoder(...)``; session
    30: OpenNMT's and eole's translators call their search strategy's ``advance`` and
    ``update_finished`` there, each once per decoded token). As
    :func:`~h2dlint.analysis.tested_tensors.model_steps_reason` (session 28) takes such a loop
    for the function holding it: not a loop over a collection's positions
    (``range(len(batches))``) nor over epochs, not a name that only holds the word
    (``ModelInput(...)``). The range may be behind a progress bar (``tqdm(range(n))``,
    ``trange(n)``), and a helper of the module named for a forward pass counts as the model
    (session 49: esm 3.2.1's ``for t in tqdm(range(max_num_steps)):`` around
    ``_batch_forward(client, batched_tokens)``, which runs the model once per step)."""
    from h2dlint.analysis.step_drivers import model_receiver

    if not isinstance(loop, ast.For) or not _step_range(loop):
        return None
    occasional = _occasional_lines(loop.body)
    for node in _own_nodes(loop.body, loops=False):
        if not isinstance(node, ast.Call) or _within(node.lineno, occasional):
            continue
        name = dotted(node.func)
        if name is not None and (model_receiver(name.split(".")) or _forward_helper(name)):
            return name
    return None


def _forward_helper(name: str) -> bool:
    """A function of the module or a method of the loop's own class named for a forward pass
    (``_batch_forward``, ``self._run_forward``; its last word ``forward``): it runs the model
    (``self.forward`` is :func:`~h2dlint.analysis.step_drivers.model_receiver`'s). Not a
    method of another object (``hooks.pre_forward``), nor ``backward``/``forward_hook``
    names."""
    parts = name.split(".")
    if len(parts) > 2 or (len(parts) == 2 and parts[0] not in ("self", "cls")):
        return False
    words = [w for w in parts[-1].lower().split("_") if w]
    return len(words) > 1 and words[-1] == "forward"


def _model_while(loop: ast.While | ast.For | ast.AsyncFor) -> str | None:
    """The model call that makes ``loop`` a loop of steps: a ``while`` loop whose own body runs
    a model (a video interpolation driver's ``while True:`` around ``model.inference(I0, I1)``
    reading frames until the queue is empty, a sampler's ``while t > 0:`` around
    ``self.denoise_step(...)``). The ``ast`` side of
    :func:`~h2dlint.analysis.tested_tensors.model_while_reason`, which makes such a loop's own
    body hot in the function holding it (session 37, triage37): with it, what the body calls
    is hot too (session 38, mine38: RIFE's ``ssim_matlab``, two syncs per frame). The same
    words in the called expression as the in-file side
    (:func:`~h2dlint.analysis.hot_calls.runs_model_call`: not a tokenizer's or processor's,
    exllamav2's ``while`` loop over ``tokenizer_model.decode``); calls under an occasional
    branch do not count."""
    from h2dlint.analysis.hot_calls import runs_model_call
    from h2dlint.analysis.step_drivers import model_receiver

    if not isinstance(loop, ast.While):
        return None
    occasional = _occasional_lines(loop.body)
    found = None
    for node in _own_nodes(loop.body, loops=False):
        if not isinstance(node, ast.Call) or _within(node.lineno, occasional):
            continue
        code = ast.unparse(node.func)
        if runs_model_call(code.lower()):
            name = dotted(node.func)
            if name is not None and model_receiver(name.split(".")):
                return code  # the model itself, named in the message (``self.model(...)``)
            found = found or code
    return found


def _step_range(loop: ast.For) -> bool:
    """``for step in range(n):``, also behind a progress bar (``tqdm(range(n), ...)``,
    ``trange(n)``, as :mod:`h2dlint.analysis.step_schedules` reads them): no ``len(...)`` in
    its bounds, no ``epoch`` target."""
    it = _progress_range(loop.iter)
    if it is None:
        return False
    if isinstance(loop.target, ast.Name) and "epoch" in loop.target.id.lower():
        return False
    return not any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
        for argument in it.args
        for node in ast.walk(argument)
    )


def _progress_range(it: ast.expr) -> ast.Call | None:
    """The ``range(...)`` or ``trange(...)`` call a loop iterates, also inside ``tqdm(...)``
    (or ``tqdm.tqdm``, ``tqdm.auto.trange``); None for anything else."""
    if not isinstance(it, ast.Call):
        return None
    name = dotted(it.func)
    last = name.rpartition(".")[2] if name is not None else None
    if name == "range" or last == "trange":
        return it
    if last == "tqdm" and it.args:
        return _progress_range(it.args[0])
    return None


def _step_through_callee(
    body: list[ast.stmt], functions: dict[str, _Function], cls: str | None
) -> str | None:
    """A step the loop body runs through a function of the module it calls on every iteration
    (one level): transformers' continuous batching loops ``while ...:
    self._inner_generation_loop(processor)``, whose body calls ``self._generation_step()``. The
    callee is ``self.<method>`` of the loop's own class or a top-level function by its name;
    what it calls under its own loops or occasional branches does not count."""
    occasional = _occasional_lines(body)
    for node in _own_nodes(body, loops=False):
        if not isinstance(node, ast.Call) or _within(node.lineno, occasional):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            key = _key(func.attr, cls) if func.value.id in ("self", "cls") and cls else None
        elif isinstance(func, ast.Name):
            key = func.id
        else:
            key = None
        callee = functions.get(key) if key is not None else None
        step = _step_called(callee.body) if callee is not None else None
        if step is not None and key is not None:
            return f"{key.rsplit('.', 1)[-1]}` -> `{step}"
    return None


def _occasional_lines(body: list[ast.stmt]) -> _Ranges:
    """The line ranges of the branches in ``body`` taken once every N steps or for debugging
    (``if step % 100 == 0:``, ``if self.should_log(step):``, ``if args.debug:``, a comparison
    with an interval: ``if (i - 1) * n // test_interval < i * n // test_interval:``)."""
    return _occasional_in(_own_nodes(body))


def _occasional_in(nodes: list[ast.AST]) -> _Ranges:
    """:func:`_occasional_lines` of the body whose own nodes are ``nodes``."""
    lines: _Ranges = []
    for node in nodes:
        if not isinstance(node, (ast.If, ast.IfExp)):
            continue
        test = ast.unparse(node.test).lower()
        words = set(re.split(r"[^a-z0-9]+", test))
        if (
            "%" in test
            or _OCCASIONAL_WORDS & words
            or (isinstance(node.test, ast.Compare) and _PERIOD_WORDS & words)
        ):
            taken = node.body if isinstance(node.body, list) else [node.body]
            for part in taken:
                lines.append([part.lineno, part.end_lineno or part.lineno])
        elif _DEVICE_WORDS & words:
            lines.extend(_off_cuda_lines(node))
    return lines


_BLOCKS = ("body", "orelse", "finalbody")


def _past_periodic_exits(function: _Function, nodes: list[ast.AST]) -> _Ranges:
    """The lines of each block of the function that follow an early exit taken off the
    period (``if total_steps % self.checkpoint_every: return``, ``if step % n != 0:
    continue``): what follows runs once every N steps (the ``ast`` side of
    :func:`h2dlint.analysis.periodic_exits.after_periodic_exit`)."""
    lines: _Ranges = []
    for owner in [function, *nodes]:
        for name in _BLOCKS:
            block = getattr(owner, name, None)
            if not isinstance(block, list):
                continue
            for i, statement in enumerate(block[:-1]):
                if _periodic_exit(statement):
                    last = block[-1]
                    lines.append([block[i + 1].lineno, last.end_lineno or last.lineno])
                    break
    return lines


def _periodic_exit(statement: ast.AST) -> bool:
    """``if step % n: return`` or ``if step % n != 0: continue`` (no ``else``, no ``raise``)."""
    if not (isinstance(statement, ast.If) and not statement.orelse and statement.body):
        return False
    if not isinstance(statement.body[-1], (ast.Return, ast.Continue, ast.Break)):
        return False
    return _off_period(statement.test)


def _off_period(test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_off_period(value) for value in test.values)
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.NotEq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == 0
    ):
        test = test.left
    if not (isinstance(test, ast.BinOp) and isinstance(test.op, ast.Mod)):
        return False
    counter, divisor = ast.unparse(test.left).lower(), ast.unparse(test.right).lower()
    return any(word in counter for word in STEP_COUNTER_WORDS) or any(
        word in divisor for word in _PERIOD_WORDS
    )


# Words of a test that may be a device test (``x.device.type == "cpu"``, ``not x.is_cuda``).
_DEVICE_WORDS = frozenset({"cpu", "cuda", "is_cuda", "type", "is_cpu", "mps", "xpu"})


def _off_cuda_lines(node: ast.If | ast.IfExp) -> _Ranges:
    """The lines of the arm of ``node`` that runs only off CUDA (``if x.device.type ==
    "cpu": return self._cpu_forward(x)``; the ``else`` of ``if x.is_cuda:``): a call there
    does not make its callee run per step on a GPU (:mod:`h2dlint.analysis.device_branches`
    judges the test)."""
    import libcst as cst

    from h2dlint.analysis.device_branches import holds_on_cuda, only_off_cuda

    try:
        test = cst.parse_expression(ast.unparse(node.test))
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return []
    if only_off_cuda(test):
        arm = node.body
    elif holds_on_cuda(test):
        arm = node.orelse
    else:
        return []
    parts = arm if isinstance(arm, list) else [arm]
    return [[part.lineno, part.end_lineno or part.lineno] for part in parts]


def occasional_call(project: ProjectIndex, caller: Caller) -> bool:
    """Whether ``caller`` makes its call (its first one) under a branch taken once every N
    steps or for debugging (``if step % n == 0:``, ``x if self.config.log_zeros else 0``):
    it does not make the callee per step, whatever the caller is."""
    guarded = _steps_of(project, caller.module)["guarded"].get(_key(caller.name, caller.cls))
    return _within(caller.line, guarded or [])

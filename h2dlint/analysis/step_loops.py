"""Calls made in a loop of steps: a function of the project called inside a ``while``/``for``
loop whose body also calls a step of its own by name (an engine's ``while True:`` loop around
``self.async_step(...)``, a trainer's loop around ``self.training_step(batch)``) runs once per
step, although the function holding the loop (``run_engine``, ``fit``) is no step by its name.

The project index (:mod:`h2dlint.project.callers`) knows who calls a function and the line of
the call, not the loops around it: the caller's module is read again here, with CPython's
``ast``, only for a function a rule asks about that nothing else makes hot. A call under a
branch taken once every N steps (``if step % 100 == 0:``, ``if self.should_log(step):``) is
not per step.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from h2dlint.project.callers import Caller
    from h2dlint.project.index import ProjectIndex

# Whether a function (name, class, the class's bases) runs per step by its name (True), may
# (False), or is cold (None): :meth:`HotPaths._hot_name`.
HotName = Callable[[str, str | None, tuple[str, ...]], "bool | None"]

# A receiver whose ``step()`` is host bookkeeping, not a step of the model (an LR scheduler's).
_HOST_STEPPERS = ("sched", "lr", "progress", "pbar", "bar", "timer", "profiler", "prof")
# Calls that run a step whatever the loop around them (besides names with a ``step`` word that
# :func:`~h2dlint.analysis.hot_names.name_reason` takes: ``step``, ``async_step``,
# ``training_step``; not ``set_step``, ``num_steps``).
_STEP_CALLS = frozenset({"forward", "execute_model"})
# Words of a branch test taken once every N steps or for debugging, not on every step.
# (a word of the test: ``should_log``, ``log_num_zeros``; not ``should_launch``, ``logits``)
_OCCASIONAL_WORDS = frozenset(
    {"log", "logging", "save", "eval", "checkpoint", "debug", "verbose", "profile"}
)

# (module, size, hash of its bytes) -> per function (name, class): its loops of steps, each as
# (first line, last line, the step it calls, the lines under an occasional branch).
_Loops = list[tuple[int, int, str, frozenset[int]]]
_Module = tuple[dict[tuple[str, str | None], _Loops], dict[tuple[str, str | None], frozenset[int]]]
_CACHE: dict[tuple[str, int, int], _Module] = {}
_CACHE_SIZE = 64


def step_loop_reason(project: ProjectIndex, qualified: str, hot_name: HotName) -> str | None:
    """Why the function or method ``qualified`` runs per step: a function of the project
    calls it inside a loop of steps (see the module docs); None when no known caller does."""
    index = project.caller_index()
    files = index.files()
    for caller in index.callers(qualified):
        if hot_name(caller.name, caller.cls, caller.bases) is None:
            continue  # a cold caller (run once by its name, a logger): nothing is hot through it
        data = files.get(caller.module)
        if data is None:
            continue
        for first, last, step, occasional in _loops_of(caller.module, data).get(
            (caller.name, caller.cls), ()
        ):
            if first <= caller.line <= last and caller.line not in occasional:
                where = f"{caller.cls}.{caller.name}" if caller.cls else caller.name
                return (
                    f"called in the loop of `{where}()` in {caller.module}, which runs "
                    f"`{step}()` on every iteration"
                )
    return None


def _loops_of(module: str, data: bytes) -> dict[tuple[str, str | None], _Loops]:
    return _read(module, data)[0]


def _guarded_of(module: str, data: bytes) -> dict[tuple[str, str | None], frozenset[int]]:
    return _read(module, data)[1]


def _read(module: str, data: bytes) -> _Module:
    key = (module, len(data), hash(data))
    found = _CACHE.get(key)
    if found is None:
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        found = (_step_loops(tree), _guarded_lines(tree))
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = found
    return found


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef
_LOOPS = (ast.While, ast.For, ast.AsyncFor)


def _functions(tree: ast.Module) -> list[tuple[tuple[str, str | None], _Function]]:
    """The top-level functions and the methods of top-level classes, by (name, class)."""
    found: list[tuple[tuple[str, str | None], _Function]] = []
    for node in tree.body:
        if isinstance(node, _FUNCTIONS):
            found.append(((node.name, None), node))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, _FUNCTIONS):
                    found.append(((item.name, node.name), item))
    return found


def _step_loops(tree: ast.Module) -> dict[tuple[str, str | None], _Loops]:
    """Per top-level function and method of a top-level class: its loops of steps."""
    found = {key: _loops_in(function) for key, function in _functions(tree)}
    return {k: v for k, v in found.items() if v}


def _guarded_lines(tree: ast.Module) -> dict[tuple[str, str | None], frozenset[int]]:
    """Per function: the lines under its branches taken every N steps or for debugging."""
    found = {key: _occasional_lines(function.body) for key, function in _functions(tree)}
    return {k: v for k, v in found.items() if v}


def _loops_in(function: _Function) -> _Loops:
    loops: _Loops = []
    for node in _own_nodes(function.body):
        if isinstance(node, _LOOPS):
            step = _step_called(node.body)
            if step is not None:
                last = node.end_lineno or node.lineno
                loops.append((node.lineno, last, step, _occasional_lines(node.body)))
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
        stack.extend(ast.iter_child_nodes(node))
    return found


def _step_called(body: list[ast.stmt]) -> str | None:
    """The name of a step the loop body calls on every iteration (``self.async_step``,
    ``engine.step``, ``self.training_step``, ``optimizer.step``; not a scheduler's
    ``step()``)."""
    from h2dlint.analysis.hot_names import name_reason

    occasional = _occasional_lines(body)
    for node in _own_nodes(body, loops=False):  # an inner loop's step is no step of this loop
        if not isinstance(node, ast.Call) or node.lineno in occasional:
            continue
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = ast.unparse(func.value).lower()
            name, method = func.attr, True
            if name == "step" and any(word in receiver for word in _HOST_STEPPERS):
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


def _occasional_lines(body: list[ast.stmt]) -> frozenset[int]:
    """The lines of the branches in ``body`` taken once every N steps or for debugging
    (``if step % 100 == 0:``, ``if self.should_log(step):``, ``if args.debug:``)."""
    lines: set[int] = set()
    for node in _own_nodes(body):
        if not isinstance(node, (ast.If, ast.IfExp)):
            continue
        test = ast.unparse(node.test).lower()
        if "%" in test or _OCCASIONAL_WORDS & set(re.split(r"[^a-z0-9]+", test)):
            taken = node.body if isinstance(node.body, list) else [node.body]
            for part in taken:
                lines.update(range(part.lineno, (part.end_lineno or 0) + 1))
    return frozenset(lines)


def occasional_call(project: ProjectIndex, caller: Caller) -> bool:
    """Whether ``caller`` makes its call (its first one) under a branch taken once every N
    steps or for debugging (``if step % n == 0:``, ``x if self.config.log_zeros else 0``):
    it does not make the callee per step, whatever the caller is."""
    data = project.caller_index().files().get(caller.module)
    if data is None:
        return False
    return caller.line in _guarded_of(caller.module, data).get((caller.name, caller.cls), ())

"""Branches a loop of model steps takes on its first few iterations only (the ``ast`` side).

``for batch_i, batch in enumerate(bar): preds = model(batch["img"]) ... if self.args.plots and
batch_i < 3: self.plot_val_samples(batch, batch_i)`` (ultralytics' validator, session 41): the
branch compares the loop's counter with a small constant, so what it calls runs on the first
three batches of a validation, not on every batch, however many batches the loop runs. The
project index keeps these lines among a function's ``guarded`` ones (``step_loops``), as it keeps
the branches taken once every N steps (``if step % 100 == 0:``): a call there does not make its
callee per step.

Only a loop of steps is judged: its own body runs a model (the words of
:func:`~h2dlint.analysis.hot_calls.runs_model_call`) and its iterable is named for steps
(:data:`STEP_ITERABLE_WORDS`: ``enumerate(bar)`` of a progress bar around the data loader,
``enumerate(timesteps)``, ``range(max_new_tokens)``), and its counter counts from 0 (``for i in
range(n)``, ``range(0, n)``, ``for i, x in enumerate(xs)`` without a start); and only a test that
holds, alone or as a conjunct of an ``and``, ``<counter> == K``, ``<counter> < K`` or
``<counter> <= K`` (or the same reversed: ``K > <counter>``) with ``K`` an integer literal of at
most :data:`FEW_STEPS` (``== K`` takes one iteration whatever ``K``). Not judged: a loop over a
model's or an optimizer's parts (``for i, opt in enumerate(self.chained_optimizers): if i ==
0:`` in megatron-core's optimizer step, ``for i in range(self.nums):`` in a block's ``forward``:
the first part runs once per step, so per step), a comparison with a name (``step < warmup``:
the warm-up may be most of a run), and ``>`` / ``>=`` / ``!=`` (every iteration after the first
few).
"""

from __future__ import annotations

import ast

# The largest ``K`` of ``counter < K`` that still means "the first few iterations".
FEW_STEPS = 10

# Words of a loop's iterable that make its iterations steps: batches of a data loader (or the
# progress bar around one), a sampler's timesteps, generated tokens, epochs.
STEP_ITERABLE_WORDS = (
    *("loader", "batch", "data", "bar", "tqdm", "iter"),
    *("step", "timestep", "token", "epoch"),
)

# What a loop's own body does not hold: nested loops, functions and classes.
_SCOPES = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def first_step_lines(nodes: list[ast.AST], stepping: bool = False) -> list[list[int]]:
    """The line ranges [first, last] of the bodies of ``if`` statements (and conditional
    expressions) among ``nodes`` (a function's own nodes) taken on a loop of model steps'
    first few iterations only (see the module); with ``stepping``, the loops among ``nodes``
    are known loops of steps (``step_loops._loops_in``), whatever they call."""
    from h2dlint.analysis.hot_calls import runs_model_call

    lines: list[list[int]] = []
    for loop in nodes:
        if not isinstance(loop, ast.For):
            continue
        counter = _counter(loop)
        if counter is None:
            continue
        body = _own_body(loop.body)
        if not stepping and not any(
            isinstance(node, ast.Call) and runs_model_call(ast.unparse(node.func).lower())
            for node in body
        ):
            continue
        for node in body:
            if isinstance(node, (ast.If, ast.IfExp)) and _first_few(node.test, counter):
                taken = node.body if isinstance(node.body, list) else [node.body]
                for part in taken:
                    lines.append([part.lineno, part.end_lineno or part.lineno])
    return lines


def _counter(loop: ast.For) -> str | None:
    """The name of ``loop``'s counter from 0, or None (see the module)."""
    call = loop.iter
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)) or call.keywords:
        return None
    iterable = ast.unparse(call).lower()
    if not any(word in iterable for word in STEP_ITERABLE_WORDS):
        return None  # ``enumerate(self.chained_optimizers)``, ``range(self.nums)``: parts
    target = loop.target
    if call.func.id == "range":
        if len(call.args) == 2 and not _literal(call.args[0], 0):
            return None
        if not 1 <= len(call.args) <= 2:
            return None
    elif call.func.id == "enumerate" and len(call.args) == 1:
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            return None
        target = target.elts[0]
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def _own_body(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of a loop's body, not of the loops, functions and classes in it (a lambda's
    body is an expression: no ``if`` statement, and a conditional there is as any other)."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, _SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _first_few(test: ast.expr, counter: str) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_first_few(value, counter) for value in test.values)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _is_name(right, counter):  # ``3 > i``: read as ``i < 3``
        left, right = right, left
        flipped = {ast.Gt: ast.Lt(), ast.GtE: ast.LtE(), ast.Eq: ast.Eq()}
        found = flipped.get(type(op))
        if found is None:
            return False
        op = found
    if not _is_name(left, counter):
        return False
    if not (isinstance(right, ast.Constant) and type(right.value) is int and right.value >= 0):
        return False
    if isinstance(op, ast.Eq):
        return True
    return isinstance(op, (ast.Lt, ast.LtE)) and right.value <= FEW_STEPS


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _literal(node: ast.expr, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value

"""Tests of an ``if`` that say what follows or what it guards runs once every N steps, or only
for debugging: ``if step % 100 != 0: return``, ``if not self.should_log(step): return``,
``if self.debug:``. Shared by the guards of a sync's site (:mod:`hot_guards`) and the calls
that carry hotness (:mod:`hot_calls`)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.period_words import PERIOD_WORDS, STEP_COUNTER_WORDS
from h2dlint.analysis.sync_basics import (
    early_exits,
    has_modulo,
    leaves,
    periodic_test,
)

# Words of an ``if`` test whose body is a debugging aid (``if _dump_dir is not None:``,
# ``if self.debug:``): what it calls does not run per step.
DEBUG_GUARD_WORDS = ("debug", "verbose", "dump", "isenabledfor")
_EMPTY = cst.Module(body=[])


def debug_guard(test: cst.BaseExpression) -> bool:
    """Whether an ``if`` test says its body is for debugging (:data:`DEBUG_GUARD_WORDS`)."""
    code = _EMPTY.code_for_node(test).lower()
    return any(word in code for word in DEBUG_GUARD_WORDS)


def after_periodic_exit(block: cst.IndentedBlock, child: cst.CSTNode) -> bool:
    """Whether a statement before ``child`` in ``block`` leaves it unless this is a step of
    the period: ``if not self.metrics.should_log(step): return``, ``if step % n != 0:
    continue``; what follows runs once every N steps. A ``raise`` is a check of the input
    (``if length % chunk != 0: raise ...``): what follows runs on every valid call. So is
    ``if batch_idx > 0: return`` (:func:`_past_first_step`): what follows runs once per epoch."""
    return any(periodic_exit(branch) for branch in early_exits(block, child))


def periodic_exit(statement: cst.CSTNode) -> bool:
    """Whether ``statement`` is an early exit that leaves its block off the period (see
    :func:`after_periodic_exit`)."""
    return (
        isinstance(statement, cst.If)
        and statement.orelse is None
        and bool(statement.body.body)
        and leaves(statement.body.body[-1])
        and not _raises(statement)
        and _off_period(statement.test)
    )


def _off_period(test: cst.BaseExpression) -> bool:
    """Whether ``test`` holds on the steps off the period (see :func:`after_periodic_exit`),
    also as one operand of an ``or`` (``if loop is None or loop.global_step % 100 != 0:
    return``: what follows runs only on every hundredth step)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return _off_period(test.left) or _off_period(test.right)
    if (
        isinstance(test, cst.UnaryOperation)
        and isinstance(test.operator, cst.Not)
        and periodic_gate(test.expression)
    ):
        return True
    if (
        isinstance(test, cst.Comparison)
        and has_modulo(test)
        and all(isinstance(c.operator, cst.NotEqual) for c in test.comparisons)
        and counts_steps(test.left)
    ):
        return True
    # ``if total_steps % self.checkpoint_every: return``: a remainder is true off the period
    # (imagen-pytorch's trainer saves a checkpoint past that exit once every N updates).
    if counts_steps(test):
        return True
    return _past_first_step(test)


# The names of a counter of the steps done (a name or the attribute read last).
_STEP_COUNTERS = frozenset(
    {
        "step",
        "global_step",
        "step_idx",
        "batch_idx",
        "batch_index",
        "batch_nb",
        "iteration",
        "iter",
        "epoch",
        "current_epoch",
    }
)


def _past_first_step(test: cst.BaseExpression) -> bool:
    """Whether ``test`` holds on every step but the first: ``batch_idx > 0``, ``step != 0``,
    ``i >= 1``, or an ``or`` with such an operand (``if self.current_epoch == 0 or batch_idx >
    0: return``): what follows the exit runs for the first batch or step only."""
    if isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.Or):
            return _past_first_step(test.left) or _past_first_step(test.right)
        return False
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    comparison = test.comparisons[0]
    bound = comparison.comparator
    if not isinstance(bound, cst.Integer) or not isinstance(test.left, (cst.Name, cst.Attribute)):
        return False
    operator, value = comparison.operator, int(bound.value)
    counter = test.left.attr if isinstance(test.left, cst.Attribute) else test.left
    if counter.value.lower() not in _STEP_COUNTERS:
        return False  # ``num_steps > 0`` counts what is left to do, not the steps done
    if isinstance(operator, (cst.GreaterThan, cst.NotEqual)):
        return value == 0
    return isinstance(operator, cst.GreaterThanEqual) and value == 1


def counts_steps(left: cst.BaseExpression) -> bool:
    """Whether ``left`` is a modulo that divides a counter of steps (``self.global_step % n``,
    ``iteration % log_every``), not a length (``length % chunk``)."""
    if not (isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Modulo)):
        return False
    code = cst.Module([]).code_for_node(left.left).lower()
    return any(word in code for word in STEP_COUNTER_WORDS) or any(
        word in cst.Module([]).code_for_node(left.right).lower() for word in PERIOD_WORDS
    )


def _raises(branch: cst.If) -> bool:
    last = branch.body.body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1]
    return isinstance(last, cst.Raise)


# The words of a call that says this step is one of the period's (``should_log(step)``).
_GATE_WORDS = frozenset({"log", "logging", "print", "report", "eval", "save", "checkpoint"})


def periodic_gate(test: cst.BaseExpression) -> bool:
    """A test that holds once every N steps: :func:`periodic_test`, or a call or a flag named
    for it (``should_log(step)``, ``is_log_step()``, ``time_to_report()``, ``should_log``), or
    only in debugging runs (:func:`~h2dlint.analysis.hot_calls.debug_guard`)."""
    if periodic_test(test):
        return True
    if debug_guard(test):  # ``if not self.debug: return``: what follows is for debugging
        return True
    if "log_every" in cst.Module([]).code_for_node(test).lower():
        return True  # ``if not self._log_every_n(step): return``
    func = test.func if isinstance(test, cst.Call) else test  # ``if not should_log:`` too
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    words = str(name).lower().split("_")
    if len(words) < 2:
        return False
    if words[0] == "should":  # should_log, should_save_checkpoint
        return words[1] in _GATE_WORDS
    if words[0] == "is":  # is_log_step, is_eval_iteration (not is_activation_to_checkpoint)
        return words[-1] in ("step", "iter", "iteration") and bool(_GATE_WORDS & set(words[1:-1]))
    return words[:2] == ["time", "to"] and bool(_GATE_WORDS & set(words[2:]))  # time_to_log


def every_n_steps(test: cst.BaseExpression) -> bool:
    """A periodic gate (:func:`periodic_gate`) that no gradient accumulation spells: a window
    of micro-batches (``(i + 1) % self.accumulation_steps == 0``) ends in every optimizer step.
    A test with an ``or`` holds on other calls too: TRL 1.16's ``if self._step % buffer_steps
    == 0 or self._buffered_inputs is None:`` (``buffer_steps`` the accumulation steps) refills
    the generation buffer of every optimizer step."""
    code = cst.Module([]).code_for_node(test).lower()
    return periodic_gate(test) and "accum" not in code and "grad" not in code and not _has_or(test)


def _has_or(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
        return True
    return any(_has_or(child) for child in node.children)


def has_loop(node: cst.CSTNode) -> bool:
    """Whether ``node`` holds a ``for`` or ``while`` loop (nested functions included)."""
    if isinstance(node, (cst.For, cst.While)):
        return True
    return any(has_loop(child) for child in node.children)

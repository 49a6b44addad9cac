"""A periodic gate spelt as a method of the class: ``if self._should_log():`` where the method
returns ``self.step_count % self.log_freq == 0``. The calls under it run once every N steps, not
per step (session 48, triage48b: nequip 0.19.1's ``TrainingStatsMonitor``, whose
``on_before_optimizer_step`` reads every parameter's and Adam state's min, max and mean with
``.item()`` only under ``if self._should_log():``, ``train/callbacks/training_stats.py:178``).

A gate is such a call (``self.NAME(...)``, any arguments) when the method is named for it
(:func:`~h2dlint.analysis.periodic_exits.periodic_gate`'s names, leading underscores dropped:
``_should_log``, ``_is_log_step``), or when the class defines ``NAME`` with a body that only
returns a remainder of a counter of steps (``return self.step_count % self.log_freq == 0``,
``return (self.iteration + 1) % self.every == 0``). A method returning a remainder of a shape
(``return x.shape[0] % 8 == 0``) is no gate: the dividend must name a step counter, or the
divisor a period (``periodic_exits.counts_steps``)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.docstrings import is_docstring
from h2dlint.analysis.periodic_exits import counts_steps, periodic_gate


def periodic_method_gate(test: cst.BaseExpression, cls: cst.ClassDef | None) -> bool:
    """Whether ``test`` is ``self.NAME(...)`` and ``NAME`` is a periodic gate of ``cls``."""
    if not isinstance(test, cst.Call):
        return False
    func = test.func
    if not (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == "self"
    ):
        return False
    name = func.attr.value
    bare = name.lstrip("_")
    if bare != name and bare and periodic_gate(cst.Call(func=cst.Name(bare), args=test.args)):
        return True  # ``self._should_log()``: ``should_log`` without its underscore
    if cls is None:
        return False
    returned = _only_return(cls, name)
    return returned is not None and _counter_remainder(returned)


def _only_return(cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The value of the only statement (a docstring aside) of ``cls``'s method ``name``, when
    that statement is a ``return``."""
    for statement in cls.body.body:
        if not (isinstance(statement, cst.FunctionDef) and statement.name.value == name):
            continue
        body = statement.body
        lines = (
            [s for s in body.body if not is_docstring(s)]
            if isinstance(body, cst.IndentedBlock)
            else [body]
        )
        if len(lines) != 1 or not isinstance(lines[0], cst.SimpleStatementLine):
            return None
        smalls = lines[0].body
        if len(smalls) == 1 and isinstance(smalls[0], cst.Return):
            return smalls[0].value
        return None
    return None


def _counter_remainder(value: cst.BaseExpression) -> bool:
    """``counter % period == 0`` (or ``!=``, or the bare remainder's truth negated, ``not
    counter % period``) that divides a counter of steps (:func:`counts_steps`)."""
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
        return counts_steps(value.expression)
    return (
        isinstance(value, cst.Comparison)
        and len(value.comparisons) == 1
        and counts_steps(value.left)
    )


def gated_by_method(
    parent: cst.CSTNode, child: cst.CSTNode, ancestors: Sequence[cst.CSTNode]
) -> bool:
    """Whether ``child`` is the body of ``parent``, an ``if`` whose test is a periodic method
    gate of the class that ``ancestors`` (outermost first) end in."""
    if not (isinstance(parent, cst.If) and child is parent.body):
        return False
    cls = next((a for a in reversed(ancestors) if isinstance(a, cst.ClassDef)), None)
    return periodic_method_gate(parent.test, cls)

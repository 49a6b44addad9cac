"""A divisibility helper as a periodic gate: ``if divisible_by(step, 10):`` is
``if step % 10 == 0:`` spelt as a call (lucidrains' packages define
``def divisible_by(num, den): return (num % den) == 0`` and gate their logging, sampling and
checkpoints with it: rectified-flow-pytorch's ``soflow.py:484``). The first argument must name a
counter of steps (``step``, ``self.step``, ``it_count``), so that a shape test such as
``divisible_by(len(wav), hop_length)`` or ``divisible_by(seq_len, block_size)`` stays a plain
test."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.period_words import STEP_COUNTER_WORDS

# Names of a helper that says whether its first argument is a multiple of its second.
_DIVISIBLE_NAMES = frozenset({"divisible_by", "is_divisible", "is_divisible_by", "divisible"})


def divisible_gate(test: cst.BaseExpression) -> bool:
    """Whether ``test`` is ``divisible_by(<step counter>, <period>)`` (or a method of that
    name): true once every ``period`` steps."""
    if not isinstance(test, cst.Call) or len(test.args) != 2:
        return False
    func = test.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    if name not in _DIVISIBLE_NAMES:
        return False
    first = test.args[0]
    if first.keyword is not None or first.star:
        return False
    if not isinstance(first.value, (cst.Name, cst.Attribute)):
        return False  # ``divisible_by(len(wav), hop)``: a shape, not a counter
    last = first.value.attr if isinstance(first.value, cst.Attribute) else first.value
    counter = last.value.lower()
    return any(word in counter for word in STEP_COUNTER_WORDS)

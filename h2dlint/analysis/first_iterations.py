"""Branches a loop takes on its first iteration only (HTD202).

``for i in range(self.sample_len): ... if i == 0 and tokenizer.no_speech is not None:
no_speech_probs = probs[:, no_speech].tolist()`` (Whisper's decoding loop, session 24): the
branch tests the loop's counter against its first value, so its body runs once per loop, not
once per step, however many steps the loop runs. Only a counter the loop itself counts from 0
is one: ``for i in range(n)`` (one argument, or a start of 0) and ``for i, x in
enumerate(xs)`` (no start); ``if i == 0`` of any other name, ``if i == 1`` or ``if step ==
start`` are not judged.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def first_iteration(ancestors: Sequence[cst.CSTNode], loop: cst.For) -> bool:
    """Whether the code below ``ancestors`` (root first; ``loop`` among them) is in the body of
    an ``if`` inside ``loop`` whose test holds ``<counter> == 0`` (alone or as a conjunct of an
    ``and``), where ``<counter>`` is ``loop``'s counter from 0 (see the module)."""
    counter = _counter(loop)
    if counter is None:
        return False
    inside = False
    for i in range(len(ancestors) - 1):
        parent, child = ancestors[i], ancestors[i + 1]
        if parent is loop:
            inside = True
            continue
        if not inside:
            continue
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if (
            isinstance(parent, cst.If)
            and child is parent.body
            and _tests_first(parent.test, counter)
        ):
            return True
    return False


def _counter(loop: cst.For) -> str | None:
    """The name of ``loop``'s counter from 0, if it has one."""
    iterable = loop.iter
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)):
        return None
    args = iterable.args
    if any(arg.keyword is not None or arg.star for arg in args):
        return None
    target = loop.target
    if iterable.func.value == "range":
        if len(args) == 2 and not _zero(args[0].value):
            return None
        if len(args) not in (1, 2):
            return None
        return target.value if isinstance(target, cst.Name) else None
    if (
        iterable.func.value == "enumerate"
        and len(args) == 1
        and isinstance(target, (cst.Tuple, cst.List))
        and target.elements
    ):
        first = target.elements[0].value
        return first.value if isinstance(first, cst.Name) else None
    return None


def _tests_first(test: cst.BaseExpression, counter: str) -> bool:
    """Whether ``test`` is ``counter == 0`` or an ``and`` with such a conjunct."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _tests_first(test.left, counter) or _tests_first(test.right, counter)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if not isinstance(target.operator, cst.Equal):
            return False
        sides = (test.left, target.comparator)
        return any(isinstance(s, cst.Name) and s.value == counter for s in sides) and any(
            _zero(s) for s in sides
        )
    return False


def _zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"

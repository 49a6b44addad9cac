"""``if`` tests that hold once per episode of an environment's ``step()``: a counter kept on the
object compared with its limit (session 47, ElegantRL's stock-trading envs: ``done = self.day ==
self.max_step`` ... ``if done: self.cumulative_returns = (...).cpu().data.tolist()``).

``step()`` is hot by its name, but the counter grows by one per call and the branch runs when it
reaches the limit: once every ``max_step`` calls, the episode's wrap-up, not a read on every
step. Judged: ``self.<counter> == self.<limit>`` or ``>=`` (the limit may be less a number:
``self.max_step - 1``), with the limit's name saying it is one (``max``, ``limit``, ``total``,
``horizon``), directly as the test or through a name every binding of which that reaches the
test is such a comparison. A counter compared with a local bound (``i == n - 1`` of a loop over
rows, which holds once per call), ``<``, ``!=`` and limits named otherwise are not.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance

_LIMIT_WORDS = ("max", "limit", "total", "horizon")


def episode_end_test(provenance: Provenance, test: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``test`` holds once per episode (see the module's docs)."""
    if isinstance(test, cst.Name):
        values = provenance.bindings(frame).reaching(test)
        return bool(values) and all(
            isinstance(v, cst.Comparison) and _counter_at_limit(v) for v in values
        )
    return isinstance(test, cst.Comparison) and _counter_at_limit(test)


def _counter_at_limit(test: cst.Comparison) -> bool:
    if len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, (cst.Equal, cst.GreaterThanEqual)):
        return False
    return _own_attribute(test.left) is not None and _limit(target.comparator)


def _own_attribute(node: cst.BaseExpression) -> str | None:
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    ):
        return node.attr.value
    return None


def _limit(node: cst.BaseExpression) -> bool:
    """``self.max_step`` or ``self.max_step - 1``."""
    if (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Subtract)
        and isinstance(node.right, cst.Integer)
    ):
        node = node.left
    name = _own_attribute(node)
    return name is not None and any(word in name.lower() for word in _LIMIT_WORDS)

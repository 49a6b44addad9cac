"""Guards a per-item loop (HTD101) sees through: a filter that keeps the items' tensors
(``if isinstance(item.feature, torch.Tensor):`` without ``else``, ``if x is not None:``, a
leading ``if not isinstance(x, torch.Tensor): continue``) filters, it does not dispatch on
type. Moved out of ``loops.py`` for size, with the body's simple statements."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.loop_transfers import rooted_in
from h2dlint.analysis.provenance import Provenance


def small_statements(body: cst.BaseSuite) -> list[cst.BaseSmallStatement] | None:
    """The body's statements, all simple; ``None`` when it holds a compound statement."""
    out: list[cst.BaseSmallStatement] = []
    if isinstance(body, cst.SimpleStatementSuite):
        return list(body.body)
    assert isinstance(body, cst.IndentedBlock)
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            return None
        out.extend(statement.body)
    return out


def tensor_filter(test: cst.BaseExpression, loop_names: set[str], provenance: Provenance) -> bool:
    """``isinstance(item, torch.Tensor)``, ``torch.is_tensor(item)`` or ``item is not None``
    of a loop item (also several ``and``-ed): a guard that keeps a collection's tensors, not a
    dispatch on type (which has branches doing different things per type)."""
    if isinstance(test, cst.BooleanOperation):
        return isinstance(test.operator, cst.And) and all(
            tensor_filter(side, loop_names, provenance) for side in (test.left, test.right)
        )
    if isinstance(test, cst.Comparison):
        return (
            len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.IsNot)
            and isinstance(test.comparisons[0].comparator, cst.Name)
            and test.comparisons[0].comparator.value == "None"
            and rooted_in(test.left, loop_names)
        )
    if not isinstance(test, cst.Call):
        return False
    args = [a.value for a in test.args if a.keyword is None and not a.star]
    if provenance.qualify(test.func) == "torch.is_tensor":
        return len(args) == 1 and rooted_in(args[0], loop_names)
    return (
        isinstance(test.func, cst.Name)
        and test.func.value == "isinstance"
        and len(args) == 2
        and rooted_in(args[0], loop_names)
        and provenance.qualify(args[1]) == "torch.Tensor"
    )


def skips_non_tensors(
    statement: cst.BaseStatement, loop_names: set[str], provenance: Provenance
) -> bool:
    """``if not isinstance(item, torch.Tensor): continue``."""
    if not (isinstance(statement, cst.If) and statement.orelse is None):
        return False
    test = statement.test
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    body = small_statements(statement.body)
    return (
        body is not None
        and len(body) == 1
        and isinstance(body[0], cst.Continue)
        and tensor_filter(test.expression, loop_names, provenance)
    )

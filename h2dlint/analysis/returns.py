"""The values a function's own ``return`` statements give (not those of nested functions,
classes or lambdas). Free of the provenance analysis, so that the class attribute index
(:mod:`~h2dlint.analysis.frames`) can use it too."""

from __future__ import annotations

import libcst as cst

from h2dlint.walk import OwnScopeVisitor, visit_read_only


class ReturnedValues(OwnScopeVisitor):
    """The values a function returns (not those of nested functions)."""

    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []
        self.bare = False
        self.yields = False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None:
            self.bare = True
        else:
            self.values.append(node.value)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.yields = True


def returned_values(function: cst.FunctionDef) -> list[cst.BaseExpression]:
    """What every ``return`` of ``function`` gives; empty when one is bare, the function
    yields, or it returns nothing."""
    collector = ReturnedValues()
    visit_read_only(function.body, collector)
    return [] if collector.bare or collector.yields else collector.values

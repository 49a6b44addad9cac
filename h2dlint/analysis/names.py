"""The variables and calls an expression or statement holds."""

from __future__ import annotations

import libcst as cst

from h2dlint.walk import visit_read_only


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.read: list[cst.Name] = []
        self.calls: list[cst.Call] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        self.read.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit_read_only(node.value, self)  # an attribute's own name is not a variable
        return False


def names_in(node: cst.CSTNode) -> set[str]:
    collector = _Names()
    visit_read_only(node, collector)
    return collector.names


def names_read(node: cst.CSTNode) -> list[cst.Name]:
    """The name nodes an expression reads, in order (not the attribute names of ``x.attr``)."""
    collector = _Names()
    visit_read_only(node, collector)
    return collector.read


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    collector = _Names()
    visit_read_only(node, collector)
    return collector.calls


def target_names(target: cst.BaseExpression) -> set[str]:
    """The names an assignment or ``for`` target binds (``a``, ``a, (b, *c)``); an attribute
    or an item binds none."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for element in target.elements for n in target_names(element.value)}
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return set()


def call_name(call: cst.Call) -> str | None:
    """The name a call is made by: ``f`` of ``f(...)``, ``m`` of ``x.m(...)``; None for
    anything else (``fs[i](...)``, ``f()(...)``)."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def bound_parameters(params: cst.Parameters) -> list[str]:
    """Every name the parameters bind: the named ones in order, then ``*args`` and
    ``**kwargs``."""
    named = (*params.posonly_params, *params.params, *params.kwonly_params)
    stars = [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return [p.name.value for p in (*named, *stars)]


def len_operand(expression: cst.BaseExpression) -> cst.BaseExpression:
    """``x`` of ``len(x)``; any other expression itself."""
    if (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Name)
        and expression.func.value == "len"
        and len(expression.args) == 1
    ):
        return expression.args[0].value
    return expression


def conditional_arms(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values ``node`` may be through nested conditional expressions (``a if c else b if d
    else e`` -> ``[a, b, e]``); ``node`` itself when it is none."""
    if isinstance(node, cst.IfExp):
        return [*conditional_arms(node.body), *conditional_arms(node.orelse)]
    return [node]

"""Which values a local name is bound to in one function (or at module level).

Flow-insensitive and conservative: every binding of a name anywhere in the scope is collected,
and a binding whose value cannot be named (a parameter, a loop target, unpacking, ``+=``,
``with ... as``, ``global``, an import, ...) is recorded as :data:`UNKNOWN`. A fact about a name
holds only when it holds for every one of its bindings. Nested functions, classes, lambdas and
comprehensions are scopes of their own and are not entered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import libcst as cst

UNKNOWN: Final = None
Scope = cst.FunctionDef | cst.Module


@dataclass
class Bindings:
    values: dict[str, list[cst.BaseExpression | None]] = field(default_factory=dict)

    def add(self, name: str, value: cst.BaseExpression | None) -> None:
        self.values.setdefault(name, []).append(value)

    def of(self, name: str) -> list[cst.BaseExpression | None]:
        return self.values.get(name, [])


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


class _Collector(cst.CSTVisitor):
    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.bindings = Bindings()

    def _unknown(self, target: cst.BaseExpression) -> None:
        for name in _target_names(target):
            self.bindings.add(name, UNKNOWN)

    # Nested scopes bind their own name here and are not entered.
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is self.root:
            for param in _params(node.params):
                self.bindings.add(param, UNKNOWN)
            return True
        self.bindings.add(node.name.value, UNKNOWN)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bindings.add(node.name.value, UNKNOWN)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return False

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return False

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return False

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.bindings.add(target.target.value, node.value)
            else:
                self._unknown(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None:
            return
        if isinstance(node.target, cst.Name):
            self.bindings.add(node.target.value, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._unknown(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if isinstance(node.target, cst.Name):
            self.bindings.add(node.target.value, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._unknown(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._unknown(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._unknown(node.name.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._unknown(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.bindings.add(item.name.value, UNKNOWN)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self.bindings.add(item.name.value, UNKNOWN)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is not None:
            self._unknown(node.asname.name)  # type: ignore[arg-type]
        else:
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value  # type: ignore[assignment]
            self._unknown(name)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.bindings.add(node.name.value, UNKNOWN)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.bindings.add(node.name.value, UNKNOWN)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.bindings.add(node.rest.value, UNKNOWN)


def _params(params: cst.Parameters) -> list[str]:
    out = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star.name.value)
    return out


def collect_bindings(scope: Scope) -> Bindings:
    collector = _Collector(scope)
    scope.visit(collector)
    return collector.bindings

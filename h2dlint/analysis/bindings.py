"""Which values reach a use of a local name in one function (or at module level).

Every binding of a name in the scope is collected with the statement that makes it. A binding
whose value cannot be named (a parameter, a loop target, unpacking of a call, ``+=``,
``with ... as``, ``global``, an import, ...) is recorded as :data:`UNKNOWN`.

For a use, the bindings that may reach it are found flow-sensitively but cheaply: the bindings
before the use's statement in source order; of those, only the last one when it runs
unconditionally before the use (its block encloses the use), else all of them; plus any binding
later in a loop that encloses the use (it reaches the next iteration). So ``x = torch.tensor(d)``
followed by ``x = x.to(dev)`` is understood line by line. Nested functions, classes, lambdas and
comprehensions are scopes of their own and are not entered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import libcst as cst

UNKNOWN: Final = None
Scope = cst.FunctionDef | cst.Module
STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
LOOPS = (cst.For, cst.While)


@dataclass(frozen=True)
class Binding:
    value: cst.BaseExpression | None
    statement: cst.CSTNode
    order: int


@dataclass
class Bindings:
    values: dict[str, list[Binding]] = field(default_factory=dict)
    parents: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    order: dict[cst.CSTNode, int] = field(default_factory=dict)

    def of(self, name: str) -> list[cst.BaseExpression | None]:
        """Every value ``name`` is bound to anywhere in the scope."""
        return [b.value for b in self.values.get(name, [])]

    def reaching(self, use: cst.Name) -> list[cst.BaseExpression | None]:
        """The values of ``use``'s name that may reach ``use``."""
        bindings = self.values.get(use.value, [])
        statement = self._statement(use)
        if statement is None:
            return [b.value for b in bindings]
        here = self.order[statement]
        before = [b for b in bindings if b.order < here]
        carried = [b for b in bindings if b.order >= here and self._loop_carried(b, use)]
        if before and self._dominates(before[-1].statement, statement):
            before = before[-1:]
        return [b.value for b in (*before, *carried)]

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode | None:
        current: cst.CSTNode | None = node
        while current is not None and current not in self.order:
            current = self.parents.get(current)
        return current

    def _ancestors(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        chain = []
        current = self.parents.get(node)
        while current is not None:
            chain.append(current)
            current = self.parents.get(current)
        return chain

    def _dominates(self, binding: cst.CSTNode, use_statement: cst.CSTNode) -> bool:
        """Whether ``binding`` runs whenever ``use_statement`` runs after it: its block is one
        of the blocks around the use."""
        block = self.parents.get(binding)
        return block is not None and block in self._ancestors(use_statement)

    def _loop_carried(self, binding: Binding, use: cst.CSTNode) -> bool:
        loops = {n for n in self._ancestors(use) if isinstance(n, LOOPS)}
        return any(n in loops for n in self._ancestors(binding.statement))


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def pairwise(
    target: cst.Tuple | cst.List, value: cst.BaseExpression | None
) -> list[cst.BaseExpression | None]:
    """The value each element of an unpacking target receives, where the value is a tuple
    or list display of the same length without starred elements; else unknowns."""
    n = len(target.elements)
    if (
        isinstance(value, (cst.Tuple, cst.List))
        and len(value.elements) == n
        and not any(isinstance(e, cst.StarredElement) for e in value.elements)
        and not any(isinstance(e, cst.StarredElement) for e in target.elements)
    ):
        return [e.value for e in value.elements]
    return [UNKNOWN] * n


class _Collector(cst.CSTVisitor):
    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.bindings = Bindings()
        self.stack: list[cst.CSTNode] = []
        self.statement: cst.CSTNode = root
        self.statements: list[cst.CSTNode] = [root]
        self.bindings.order[root] = -1

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.stack:
            self.bindings.parents[node] = self.stack[-1]
        self.stack.append(node)
        if isinstance(node, STATEMENTS) and node is not self.root:
            self.bindings.order[node] = len(self.bindings.order)
            self.statements.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        # libcst calls on_leave also for nodes whose children were skipped.
        super().on_leave(original_node)
        self.stack.pop()
        if isinstance(original_node, STATEMENTS) and original_node is not self.root:
            self.statements.pop()

    def add(self, name: str, value: cst.BaseExpression | None) -> None:
        statement = self.statements[-1]
        binding = Binding(value, statement, self.bindings.order[statement])
        self.bindings.values.setdefault(name, []).append(binding)

    def _unknown(self, target: cst.BaseExpression) -> None:
        for name in _target_names(target):
            self.add(name, UNKNOWN)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self.add(target.value, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element, element_value in zip(
                target.elements, pairwise(target, value), strict=True
            ):
                self._bind(element.value, element_value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, UNKNOWN)

    # Nested scopes bind their own name here and are not entered.
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is self.root:
            for param in _params(node.params):
                self.add(param, UNKNOWN)
            return True
        self.add(node.name.value, UNKNOWN)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.add(node.name.value, UNKNOWN)
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
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._unknown(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

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
            self.add(item.name.value, UNKNOWN)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self.add(item.name.value, UNKNOWN)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is not None:
            self._unknown(node.asname.name)  # type: ignore[arg-type]
        else:
            name: cst.BaseExpression = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            self._unknown(name)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.add(node.name.value, UNKNOWN)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.add(node.name.value, UNKNOWN)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.add(node.rest.value, UNKNOWN)


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

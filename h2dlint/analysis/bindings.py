"""Which values reach a use of a local name in one function (or at module level).

Every binding of a name in the scope is collected with the statement that makes it. A binding
whose value cannot be named (a parameter, a loop target, unpacking of a call, ``+=``,
``with ... as``, ``global``, an import, ...) is recorded as :data:`UNKNOWN`.

For a use, the bindings that may reach it are found flow-sensitively but cheaply: the bindings
before the use's statement in source order, less those in another arm of an ``if`` around the
use that no loop repeats (:func:`~h2dlint.analysis.branch_bindings.other_arm`); of those,
only the last one when it runs unconditionally before the use (its block encloses the use),
else all of them but those a statement binding the name on every path kills (every arm of an
``if``/``else``, a ``with`` block: :mod:`~h2dlint.analysis.branch_bindings`); plus any binding
later in a loop that encloses the use (it reaches the next iteration). So ``x = torch.tensor(d)``
followed by ``x = x.to(dev)`` is understood line by line. Nested functions and classes are scopes
of their own and are not entered.

Comprehensions and lambdas are scopes of their own too, but they are entered (a walrus in a
comprehension binds in the function): the names their ``for`` targets and parameters bind shadow
the function's, so in ``[x.to(dev) for x in xs]`` the ``x`` of the element is an item of ``xs``
(:data:`UNKNOWN`, or each element of a display it iterates), never an ``x`` bound earlier in the
function. The first iterable of a comprehension and the defaults of a lambda are evaluated
outside it, in the function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, cast

import libcst as cst

from h2dlint.analysis.arguments import zip_iterables
from h2dlint.analysis.branch_bindings import other_arm, through_branches
from h2dlint.analysis.names import bound_parameters, target_names
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import every_node_plan, node_classes, visit_read_only

UNKNOWN: Final = None
Scope = cst.FunctionDef | cst.Module
STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
STATEMENT_CLASSES = node_classes(*STATEMENTS)  # the same, for a test by class
LOOPS = (cst.For, cst.While)
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_COMPREHENSION_CLASSES = node_classes(*COMPREHENSIONS)  # the same, for a test by class
Comprehension = cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp
# In-place arithmetic updates (``t += x``, ``t *= 2``): the name keeps its kind and place.
ARITHMETIC_UPDATES = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)


def arithmetic_update(statement: cst.CSTNode, name: str) -> cst.Name | None:
    """The target of ``statement`` when it updates ``name`` in place with arithmetic (``total
    += x.sum()``, ``z += 1``), else None."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    for small in statement.body:
        if (
            isinstance(small, cst.AugAssign)
            and isinstance(small.target, cst.Name)
            and small.target.value == name
            and isinstance(small.operator, ARITHMETIC_UPDATES)
        ):
            return small.target
    return None


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
    # The scope's own node (its parameters are bound at it).
    root: cst.CSTNode | None = None
    # Memoised per node: its ancestors (innermost first), the loops around it, what reaches it.
    _ancestor_cache: dict[cst.CSTNode, tuple[cst.CSTNode, ...]] = field(
        default_factory=dict, repr=False
    )
    _loop_cache: dict[cst.CSTNode, frozenset[cst.CSTNode]] = field(default_factory=dict, repr=False)
    _reaching_cache: dict[cst.CSTNode, tuple[Binding, ...]] = field(
        default_factory=dict, repr=False
    )

    def of(self, name: str) -> list[cst.BaseExpression | None]:
        """Every value ``name`` is bound to anywhere in the scope (not in its comprehensions
        and lambdas)."""
        return [b.value for b in self.values.get(name, [])]

    def reaching(self, use: cst.Name) -> list[cst.BaseExpression | None]:
        """The values of ``use``'s name that may reach ``use``."""
        return [b.value for b in self.reaching_bindings(use)]

    def reaching_bindings(self, use: cst.Name) -> tuple[Binding, ...]:
        """The bindings of ``use``'s name that may reach ``use``."""
        cached = self._reaching_cache.get(use)
        if cached is None:
            cached = self._reaching_cache[use] = self._compute_reaching(use)
        return cached

    def is_parameter(self, use: cst.Name) -> bool:
        """Whether the only binding that may reach ``use`` is a parameter of the scope."""
        bindings = self.reaching_bindings(use)
        return (
            len(bindings) == 1
            and bindings[0].statement is self.root
            and isinstance(self.root, cst.FunctionDef)
        )

    def _compute_reaching(self, use: cst.Name) -> tuple[Binding, ...]:
        shadowing = self._shadowing(use)
        if shadowing is not None:
            return shadowing
        bindings = self.values.get(use.value, [])
        statement = self._statement(use)
        if statement is None:
            return tuple(bindings)
        here = self.order[statement]
        before = [b for b in bindings if b.order < here]
        if len(before) > 1 and any(a.__class__ is cst.If for a in self._ancestors(statement)):
            # only a use inside an ``if`` arm has another arm's bindings to drop
            before = [b for b in before if not other_arm(b.statement, statement, self._ancestors)]
        carried = [b for b in bindings if b.order >= here and self._loop_carried(b, use)]
        if before and self._dominates(before[-1].statement, statement):
            before = before[-1:]
            if not self._loops(before[0].statement).isdisjoint(self._loops(statement)):
                # ``x = f(...)`` earlier in the same loop body, on every path to the use: a
                # binding later in the loop reaches the use only through the next iteration's
                # start, and this one rebinds the name before the use every time.
                carried = []
        elif len(before) + len(carried) > 1:
            # ``if c: x = a`` ... ``else: x = b``: what was bound before the ``if`` is gone.
            cut = through_branches(statement, before, carried, self.order, self._ancestors)
            if cut is not None:
                before, carried = cut
        return (*before, *carried)

    def _shadowing(self, use: cst.Name) -> tuple[Binding, ...] | None:
        """The bindings of ``use``'s name by the innermost comprehension or lambda around it
        that binds the name, or None when none does."""
        child: cst.CSTNode = use
        grandchild: cst.CSTNode | None = None
        for node in self._ancestors(use):
            if node.__class__ in STATEMENT_CLASSES:
                return None
            kind = node.__class__  # not isinstance: see walk.node_classes
            if kind in _COMPREHENSION_CLASSES:
                comprehension = cast(Comprehension, node)
                first = comprehension.for_in
                outside = child is first and grandchild is first.iter
                values = None if outside else _comprehension_values(comprehension, use.value)
                if values is not None:
                    return tuple(Binding(v, node, -1) for v in values)
            elif (
                kind is cst.Lambda  # no subclasses: the isinstance below is its fast path
                and isinstance(node, cst.Lambda)
                and child is node.body
                and use.value in bound_parameters(node.params)
            ):
                return (Binding(UNKNOWN, node, -1),)
            grandchild, child = child, node
        return None

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode | None:
        current: cst.CSTNode | None = node
        while current is not None and current not in self.order:
            current = self.parents.get(current)
        return current

    def _ancestors(self, node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        """``node``'s ancestors, innermost first (memoised along the chain)."""
        cached = self._ancestor_cache.get(node)
        if cached is not None:
            return cached
        pending = []
        current: cst.CSTNode | None = node
        chain: tuple[cst.CSTNode, ...] = ()
        while current is not None:
            found = self._ancestor_cache.get(current)
            if found is not None:
                chain = found
                break
            pending.append(current)
            current = self.parents.get(current)
        for item in reversed(pending):
            parent = self.parents.get(item)
            chain = (parent, *chain) if parent is not None else ()
            self._ancestor_cache[item] = chain
        return self._ancestor_cache[node]

    def _loops(self, node: cst.CSTNode) -> frozenset[cst.CSTNode]:
        cached = self._loop_cache.get(node)
        if cached is None:
            cached = frozenset(n for n in self._ancestors(node) if isinstance(n, LOOPS))
            self._loop_cache[node] = cached
        return cached

    def _dominates(self, binding: cst.CSTNode, use_statement: cst.CSTNode) -> bool:
        """Whether ``binding`` runs whenever ``use_statement`` runs after it: its block is one
        of the blocks around the use."""
        block = self.parents.get(binding)
        return block is not None and block in self._ancestors(use_statement)

    def _loop_carried(self, binding: Binding, use: cst.CSTNode) -> bool:
        loops = self._loops(use)
        return bool(loops) and not loops.isdisjoint(self._loops(binding.statement))


def iterated_by(loop: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """What ``name`` is an item of, when ``loop`` binds it as its item: ``xs`` of ``for name in
    xs`` or ``for i, name in enumerate(xs)``; None otherwise (another statement, a counter, a
    part of an unpacked item)."""
    if not isinstance(loop, cst.For):
        return None
    target, iterable = enumerated_item(loop.target, loop.iter)
    return iterable if isinstance(target, cst.Name) and target.value == name else None


def zipped_item(loop: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """What ``name`` is an item of, when ``loop`` binds it as one of the items of a ``zip``:
    ``ys`` of ``for x, name in zip(xs, ys)``; else what :func:`iterated_by` says."""
    if not isinstance(loop, cst.For):
        return None
    found = zip_item(loop.target, loop.iter, name)
    return found if found is not None else iterated_by(loop, name)


def zip_item(
    target: cst.BaseExpression, iterable: cst.BaseExpression, name: str
) -> cst.BaseExpression | None:
    """``ys`` when ``target`` binds ``name`` to the items of ``ys`` in ``iterable`` =
    ``zip(xs, ys)`` (a loop's or a comprehension's ``for x, name in zip(xs, ys)``)."""
    iterables = zip_iterables(iterable)
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and iterables is not None
        and len(iterables) == len(target.elements)
    ):
        for element, source in zip(target.elements, iterables, strict=True):
            if isinstance(element.value, cst.Name) and element.value.value == name:
                return source
    return None


def enumerated_item(
    target: cst.BaseExpression, iterable: cst.BaseExpression
) -> tuple[cst.BaseExpression, cst.BaseExpression]:
    """A loop's item target and what it iterates, seen through ``enumerate``: ``(x, xs)`` for
    ``for i, x in enumerate(xs)``; any other loop's ``(target, iterable)`` unchanged."""
    if (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value == "enumerate"
        and iterable.args
        and isinstance(target, cst.Tuple)
        and len(target.elements) == 2
    ):
        return target.elements[1].value, iterable.args[0].value
    return target, iterable


def _comprehension_values(
    node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp, name: str
) -> list[cst.BaseExpression | None] | None:
    """What a comprehension binds ``name`` to: each element of a display it iterates
    (``for t in (a, b)``), else :data:`UNKNOWN`; None when it does not bind ``name``."""
    clause: cst.CompFor | None = node.for_in
    found: list[cst.BaseExpression | None] | None = None
    while clause is not None:
        if name in target_names(clause.target):
            iterable = clause.iter
            if (
                isinstance(clause.target, cst.Name)
                and isinstance(iterable, (cst.List, cst.Tuple))
                and iterable.elements
                and not any(isinstance(e, cst.StarredElement) for e in iterable.elements)
            ):
                found = [e.value for e in iterable.elements]
            else:
                found = [UNKNOWN]
        clause = clause.inner_for_in
    return found


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
    """The bindings of one scope, and the parent and statement order of each of its nodes.
    It walks the scope by itself (:meth:`collect`), every node but tokens."""

    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.bindings = Bindings()
        self.statements: list[cst.CSTNode] = [root]
        self.bindings.order[root] = -1
        self.bindings.root = root
        self.lambdas = 0

    def collect(self) -> None:
        """Record each node's parent and each statement's order, and call the ``visit_``/
        ``leave_`` methods, in libcst's visiting order (a ``visit_`` method's False skips the
        node's children; the node itself is recorded)."""
        plan = every_node_plan(_Collector)
        kinds, make, skipped = plan.kinds, plan.entry, plan.skipped
        parents, order, statements = self.bindings.parents, self.bindings.order, self.statements
        root = self.root

        def visit(node: cst.CSTNode, parent: cst.CSTNode | None) -> None:
            kind = node.__class__
            entry = kinds.get(kind)
            if entry is None:
                entry = make(kind)
            visit_function, leave_function, names = entry
            if parent is not None:
                parents[node] = parent
            statement = kind in STATEMENT_CLASSES and node is not root
            if statement:
                order[node] = len(order)
                statements.append(node)
            if visit_function is None or visit_function(self, node) is not False:
                for name in names:
                    value = getattr(node, name)
                    value_kind = value.__class__
                    if value_kind is tuple or value_kind is list:
                        for child in value:
                            if child.__class__ not in skipped:
                                visit(child, node)
                    elif value_kind not in skipped:  # None and MaybeSentinel are in it
                        visit(value, node)
            if leave_function is not None:
                leave_function(self, node)
            if statement:
                statements.pop()

        try:
            visit(root, None)
        finally:
            visit = None  # type: ignore[assignment]  # the closure's reference cycle

    def add(self, name: str, value: cst.BaseExpression | None) -> None:
        statement = self.statements[-1]
        binding = Binding(value, statement, self.bindings.order[statement])
        self.bindings.values.setdefault(name, []).append(binding)

    def _unknown(self, target: cst.BaseExpression) -> None:
        for name in target_names(target):
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
            for param in bound_parameters(node.params):
                self.add(param, UNKNOWN)
            return True
        self.add(node.name.value, UNKNOWN)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.add(node.name.value, UNKNOWN)
        return False

    # Comprehensions and lambdas are entered (for the parents of their nodes); the names they
    # bind are theirs (see Bindings._shadowing), but a walrus in a comprehension binds here.
    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.lambdas += 1
        return True

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.lambdas -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._unknown(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if not self.lambdas:
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
            self._unknown(node.asname.name)
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


def collect_bindings(scope: Scope) -> Bindings:
    collector = _Collector(scope)
    collector.collect()
    return collector.bindings


# The names each function uses, per file.
_FUNCTION_NAMES: SharedKey[set[str]] = SharedKey("names a function uses")


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def used_names(context: FileContext, function: cst.FunctionDef | cst.Module) -> set[str]:
    """Every name ``function`` uses (computed once per function and file)."""

    def collect() -> set[str]:
        names = _Names()
        visit_read_only(function, names)
        return names.names

    return context.shared(_FUNCTION_NAMES, collect, function)

"""The one tree walker: libcst's visiting order without libcst's cost, for the rule dispatch
(:class:`HandlerTable`, :func:`walk_handlers`) and for read-only visitors of the analyses and
rules (:func:`visit_read_only`, :class:`ReadOnlyVisitor`).

libcst's own ``module.visit`` rebuilds and validates every node it leaves (and calls two
attribute hooks per field), which costs more than twice the walk itself. Both walks here visit
the same nodes in the same order, find each node class's handlers and child fields once, and
skip whitespace, comments and punctuation (``TOKEN_TYPES``) unless a handler wants them.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import libcst as cst
from libcst import MaybeSentinel

STATEMENT_TYPES = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def _child_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of a node class that libcst's visitor descends into, in its order.

    ``_visit_and_replace_children`` visits them one call at a time, ``visit_*(self, "field",
    ...)``, in the order the new node's fields are listed; the compiler keeps a function's
    constants in the order of their first use, so the field names among its constants are that
    order. ``tests/test_walk.py`` checks it against libcst's own traversal on real code.
    """
    names = {f.name for f in dataclasses.fields(kind)}
    constants = kind._visit_and_replace_children.__code__.co_consts
    return tuple(dict.fromkeys(c for c in constants if type(c) is str and c in names))


@functools.cache
def _is_statement(kind: type[cst.CSTNode]) -> bool:
    return issubclass(kind, STATEMENT_TYPES)


def node_classes(*bases: type) -> frozenset[type[cst.CSTNode]]:
    """Every class of node that is one of ``bases`` or derives from one: for a test by
    ``node.__class__ in ...``, which costs a set lookup where ``isinstance`` of libcst's
    abstract classes goes through ``ABCMeta.__instancecheck__`` (about a microsecond, paid on
    every node of a walk)."""
    found: set[type[cst.CSTNode]] = set()
    stack: list[type] = list(bases)
    while stack:
        kind = stack.pop()
        found.add(kind)
        stack.extend(kind.__subclasses__())
    return frozenset(found)


# Whitespace, comments and punctuation: nodes that hold nothing but more of them. A walk for
# rules that handle none of them skips them, subtrees and all (about half of all nodes).
TOKEN_TYPES = node_classes(
    cst.BaseParenthesizableWhitespace,
    cst.BaseUnaryOp,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseAugOp,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Newline,
    cst.Comment,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Asynchronous,
    cst.ImportStar,
)
# Nodes that hold nothing but tokens: skipped with them, unless a rule handles them.
LEAF_TYPES: frozenset[type[cst.CSTNode]] = frozenset(
    {
        cst.Name,
        cst.Integer,
        cst.Float,
        cst.Imaginary,
        cst.SimpleString,
        cst.Ellipsis,
        cst.FormattedStringText,
        cst.Pass,
        cst.Break,
        cst.Continue,
    }
)
# A handler: who owns it (a rule) and the bound ``visit_*``/``leave_*`` method.
Handlers = list[tuple[Any, Callable[[Any], Any]]]
# Per node class: its visit handlers, leave handlers, whether it is a statement, child fields.
Plan = tuple[Handlers, Handlers, bool, tuple[str, ...]]
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}
_CONTENT_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _fields_of(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = _child_fields(kind)
    return fields


def _content_fields_of(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """``kind``'s child fields less those that by their declared type hold nothing but tokens
    (``lpar``, ``comma``, ``whitespace_after_func``...: two fields in three): for a walk that
    skips tokens, which would read each such field only to skip its value."""
    fields = _CONTENT_FIELDS.get(kind)
    if fields is None:
        fields = _CONTENT_FIELDS[kind] = _content_fields(kind)
    return fields


def _content_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    fields = _fields_of(kind)
    try:
        hints = typing.get_type_hints(kind)
    except Exception:  # an annotation that cannot be resolved: keep every field
        return fields
    return tuple(name for name in fields if not _tokens_only(hints.get(name, Any)))


_NOT_CHILDREN = frozenset({*TOKEN_TYPES, type(None), MaybeSentinel})


def content_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node.children`` without whitespace, comments and punctuation (``TOKEN_TYPES``), in
    libcst's order: libcst's ``children`` visits and rebuilds every field to list them."""
    found: list[cst.CSTNode] = []
    for name in _content_fields_of(node.__class__):
        value = getattr(node, name)
        if value.__class__ is tuple or value.__class__ is list:
            found.extend(child for child in value if child.__class__ not in TOKEN_TYPES)
        elif value.__class__ not in _NOT_CHILDREN:
            found.append(value)
    return found


def _tokens_only(hint: Any) -> bool:
    """Whether every value of the type ``hint`` is a token, None or ``MaybeSentinel``."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is None or not args:
        return hint is type(None) or hint is MaybeSentinel or hint in TOKEN_TYPES
    return all(_tokens_only(arg) for arg in args)


class HandlerTable:
    """The ``visit_<Node>``/``leave_<Node>`` methods of several visitors (the rules of one
    file), by node class, and which nodes a walk for them skips."""

    def __init__(self, owners: Sequence[Any]) -> None:
        self.visits: dict[str, Handlers] = {}
        self.leaves: dict[str, Handlers] = {}
        for owner in owners:
            for attr in dir(type(owner)):
                if attr.startswith("visit_"):
                    self.visits.setdefault(attr[6:], []).append((owner, getattr(owner, attr)))
                elif attr.startswith("leave_"):
                    self.leaves.setdefault(attr[6:], []).append((owner, getattr(owner, attr)))
        self.plans: dict[type[cst.CSTNode], Plan] = {}
        handled = set(self.visits) | set(self.leaves)
        self.skipped: frozenset[type[cst.CSTNode]] = frozenset()
        if not any(kind.__name__ in handled for kind in TOKEN_TYPES):
            leaves = {kind for kind in LEAF_TYPES if kind.__name__ not in handled}
            self.skipped = TOKEN_TYPES | leaves

    def plan(self, kind: type[cst.CSTNode]) -> Plan:
        fields = _content_fields_of(kind) if self.skipped else _fields_of(kind)
        name = kind.__name__
        plan = (self.visits.get(name, []), self.leaves.get(name, []), _is_statement(kind), fields)
        self.plans[kind] = plan
        return plan


def walk_handlers(
    root: cst.CSTNode,
    table: HandlerTable,
    call: Callable[[Handlers, cst.CSTNode], None],
    ancestors: list[cst.CSTNode],
    statements: list[cst.CSTNode],
) -> None:
    """Walk ``root`` in libcst's visiting order, handing each node to ``call`` with its visit
    handlers before its children and its leave handlers after them, and keeping ``ancestors``
    and ``statements`` (the enclosing nodes and statements, outermost first) up to date."""
    plans, make_plan = table.plans, table.plan
    sentinel, skipped = MaybeSentinel, table.skipped

    def visit(node: cst.CSTNode) -> None:
        kind = node.__class__
        plan = plans.get(kind)
        if plan is None:
            plan = make_plan(kind)
        visits, leaves, statement, fields = plan
        if visits:
            call(visits, node)
        ancestors.append(node)
        if statement:
            statements.append(node)
        for name in fields:
            value = getattr(node, name)
            value_kind = value.__class__
            if value_kind is tuple or value_kind is list:
                for child in value:
                    if child.__class__ not in skipped:
                        visit(child)
            elif value is not None and value_kind is not sentinel and value_kind not in skipped:
                visit(value)
        ancestors.pop()
        if statement:
            statements.pop()
        if leaves:
            call(leaves, node)

    try:
        visit(root)
    finally:
        # The recursive closure is a reference cycle (visit -> its cell -> visit) that would
        # keep the handlers, their owners and so the whole tree alive until the next garbage
        # collection.
        visit = None  # type: ignore[assignment]


def visit_read_only(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a visitor that changes nothing, without libcst's cost.

    libcst's ``visit`` rebuilds and validates every node it leaves even for a ``CSTVisitor``
    (and throws the copies away), which costs more than the walk itself. This walks the same
    nodes in the same order and calls ``on_visit`` (whose False skips the children) and
    ``on_leave``, so every ``visit_<Node>``/``leave_<Node>`` method runs as under ``visit``; the
    per-field hooks (``visit_<Node>_<field>``) are not called.

    What it does not visit: whitespace, comments and punctuation (``TOKEN_TYPES``, about half of
    all nodes) unless the visitor defines a ``visit_``/``leave_`` method for one of them; and,
    for a visitor that keeps libcst's own ``on_visit``/``on_leave``, also the token-only leaves
    (``LEAF_TYPES``: names, numbers, strings...) it has no method for. A visitor that overrides
    ``on_visit`` sees every other node. The handlers of each node class are looked up once per
    visitor class, not by name on every node.
    """
    _plan_of(visitor.__class__).walk(node, visitor)


class _ReadOnlyPlan:
    """How one visitor class walks: per node class, its handlers and child fields."""

    def __init__(self, visitor_class: type[cst.CSTVisitor], every_node: bool = False) -> None:
        self.visitor_class = visitor_class
        self.default = not every_node and (
            visitor_class.on_visit in _DEFAULT_ON_VISIT
            and visitor_class.on_leave in _DEFAULT_ON_LEAVE
        )
        handled = {name[6:] for name in _handler_names(visitor_class) if self._own(name)}
        # Tokens nest (a comment is inside an empty line): one handled keeps them all.
        skipped: set[type[cst.CSTNode]] = set()
        if not any(kind.__name__ in handled for kind in TOKEN_TYPES):
            skipped |= TOKEN_TYPES
        if self.default:
            skipped |= {kind for kind in LEAF_TYPES if kind.__name__ not in handled}
        self.skipped = frozenset({*skipped, type(None), MaybeSentinel})
        self.fields_of = _content_fields_of if skipped >= TOKEN_TYPES else _fields_of
        # node class -> (visit function, leave function, child fields)
        self.kinds: dict[type[cst.CSTNode], tuple[Any, Any, tuple[str, ...]]] = {}

    def _own(self, name: str) -> Any:
        """The visitor class's own method ``name``: None where it is libcst's empty stub."""
        found = getattr(self.visitor_class, name, None)
        return None if found is None or found is getattr(cst.CSTVisitor, name, None) else found

    def entry(self, kind: type[cst.CSTNode]) -> tuple[Any, Any, tuple[str, ...]]:
        """``kind``'s visit function, leave function (None where the class has none) and child
        fields."""
        found = self.kinds.get(kind)
        return found if found is not None else self._kind(kind)

    def _kind(self, kind: type[cst.CSTNode]) -> tuple[Any, Any, tuple[str, ...]]:
        name = kind.__name__
        entry = (self._own(f"visit_{name}"), self._own(f"leave_{name}"), self.fields_of(kind))
        self.kinds[kind] = entry
        return entry

    def walk(self, node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
        kinds, make, skipped = self.kinds, self._kind, self.skipped
        default = self.default
        on_visit, on_leave = visitor.on_visit, visitor.on_leave

        def visit(current: cst.CSTNode) -> None:
            kind = current.__class__
            entry = kinds.get(kind)
            if entry is None:
                entry = make(kind)
            visit_function, leave_function, names = entry
            if default:
                enter = visit_function is None or visit_function(visitor, current) is not False
            else:
                enter = on_visit(current)
            if enter:
                for name in names:
                    value = getattr(current, name)
                    value_kind = value.__class__
                    if value_kind is tuple or value_kind is list:
                        for child in value:
                            if child.__class__ not in skipped:
                                visit(child)
                    elif value_kind not in skipped:  # None and MaybeSentinel are in it
                        visit(value)
            if not default:
                on_leave(current)
            elif leave_function is not None:
                leave_function(visitor, current)

        try:
            visit(node)
        finally:
            visit = None  # type: ignore[assignment]  # the closure's reference cycle


_READ_ONLY_PLANS: dict[type[cst.CSTVisitor], _ReadOnlyPlan] = {}


def _handler_names(visitor_class: type) -> set[str]:
    """The ``visit_``/``leave_`` names that the visitor class or one of its bases outside
    libcst defines (libcst's visitor classes define an empty stub of every one of them: asking
    ``dir()`` and ``getattr`` about all of them cost some 5 ms per visitor class, in every
    worker)."""
    names: set[str] = set()
    for klass in visitor_class.__mro__:
        if klass.__module__.startswith("libcst"):
            continue
        names.update(n for n in vars(klass) if n.startswith(("visit_", "leave_")))
    return names


def _plan_of(visitor_class: type[cst.CSTVisitor]) -> _ReadOnlyPlan:
    plan = _READ_ONLY_PLANS.get(visitor_class)
    if plan is None:
        plan = _READ_ONLY_PLANS[visitor_class] = _ReadOnlyPlan(visitor_class)
    return plan


_EVERY_NODE_PLANS: dict[type[cst.CSTVisitor], _ReadOnlyPlan] = {}


def every_node_plan(visitor_class: type[cst.CSTVisitor]) -> _ReadOnlyPlan:
    """The tables of a visitor class that walks a tree by itself and sees every node but
    tokens (the nodes an ``on_visit`` override sees: to record each one's parent, say) without
    an ``on_visit``/``on_leave`` call per node: per node class, ``entry`` gives its
    ``visit_``/``leave_`` methods (None where the class has none) and child fields, and
    ``skipped`` holds the classes of children not to enter."""
    plan = _EVERY_NODE_PLANS.get(visitor_class)
    if plan is None:
        plan = _EVERY_NODE_PLANS[visitor_class] = _ReadOnlyPlan(visitor_class, every_node=True)
    return plan


class OwnScopeVisitor(cst.CSTVisitor):
    """Visits one scope's own code: nested functions, classes and lambdas are scopes of their
    own and are not entered. A subclass that wants their names overrides the hook (and returns
    False itself)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class OwnLoopBodyVisitor(cst.CSTVisitor):
    """Visits a loop's own body: what runs once per iteration. Nested loops (their own
    iterations), functions and classes are not entered; a lambda is (one called in the body
    runs there)."""

    def visit_For(self, node: cst.For) -> bool:
        return False

    def visit_While(self, node: cst.While) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


class ReadOnlyVisitor(cst.CSTVisitor):
    """A ``CSTVisitor`` whose ``on_visit``/``on_leave`` find the ``visit_<Node>``/
    ``leave_<Node>`` methods once per class instead of by name on every node: the base of
    visitors that override ``on_visit`` and call ``super().on_visit(node)``."""

    _entries: ClassVar[dict[type[cst.CSTNode], tuple[Any, Any, tuple[str, ...]]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._entries = {}  # the class's own table, filled on first use of each node class

    def on_visit(self, node: cst.CSTNode) -> bool:
        entry = self._entries.get(node.__class__)
        if entry is None:
            entry = self._entries[node.__class__] = _plan_of(self.__class__).entry(node.__class__)
        visit = entry[0]
        return visit is None or visit(self, node) is not False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        entry = self._entries.get(original_node.__class__)
        if entry is None:
            entry = _plan_of(self.__class__).entry(original_node.__class__)
            self._entries[original_node.__class__] = entry
        if entry[1] is not None:
            entry[1](self, original_node)


_DEFAULT_ON_VISIT = (cst.CSTVisitor.on_visit, ReadOnlyVisitor.on_visit)
_DEFAULT_ON_LEAVE = (cst.CSTVisitor.on_leave, ReadOnlyVisitor.on_leave)


class _Holds(cst.CSTVisitor):
    def __init__(self, target: cst.CSTNode) -> None:
        self.target = target
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.found = self.found or node is self.target
        return not self.found


def holds(tree: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """Whether ``node`` is ``tree`` or inside it (False for no tree)."""
    if tree is None:
        return False
    if tree is node:
        return True
    finder = _Holds(node)
    visit_read_only(tree, finder)
    return finder.found


def parent_map(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """Every node under ``root`` (not in nested functions, classes or lambdas) to its parent."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children:
            parents[child] = node
            if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            stack.append(child)
    return parents

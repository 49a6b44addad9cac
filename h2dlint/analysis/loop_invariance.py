"""Is an expression the same on every iteration of a loop: what a loop's body changes (names
it binds, attributes and items it writes, objects it changes in place or hands to a function),
what an expression reads and whether its calls are pure, and whether a statement runs on every
iteration. HTD302 (a copy that does not change in its loop) asks these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from h2dlint.analysis.arguments import first_positional
from h2dlint.analysis.bindings import COMPREHENSIONS
from h2dlint.analysis.factories import RANDOM_FACTORIES
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.loop_iterables import tiny_iterable
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.torch_api import (
    CONVERTERS,
    DTYPE_METHODS,
    DTYPE_NAMES,
    FRESH_FACTORIES,
    HOST_WRAPPERS,
    JOINS,
    SAME_DEVICE_FUNCTIONS,
)
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import OwnScopeVisitor, visit_read_only

# What each loop's body changes, per file, under its own typed key.
_LOOPS: SharedKey[dict[cst.CSTNode, LoopChanges]] = SharedKey("loop summaries")

SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
# Calls that compute the same value from the same inputs, with no effect: an invariant copy may
# contain them. Random factories draw new numbers each time, so they are left out.
PURE_TORCH = (
    (FRESH_FACTORIES - RANDOM_FACTORIES)
    | CONVERTERS
    | HOST_WRAPPERS
    | JOINS
    | SAME_DEVICE_FUNCTIONS
    | DTYPE_NAMES
    | frozenset({"torch.device", "torch.Size"})
)
PURE_BUILTINS = frozenset(
    {"len", "int", "float", "bool", "list", "tuple", "range", "min", "max", "abs", "round", "sum"}
)
PURE_METHODS = DTYPE_METHODS | frozenset(
    {
        "size",
        "dim",
        "numel",
        "view",
        "reshape",
        "to",
        "cuda",
        "contiguous",
        "unsqueeze",
        "squeeze",
        "t",
        "transpose",
        "permute",
        "expand",
        "clone",
        "detach",
        "flatten",
        # a copy to the host, and a sparse tensor's parts (session 19: HTD302's host copies)
        "cpu",
        "coalesce",
        "indices",
        "values",
    }
)
# Methods that change their object in place (besides torch's ``*_`` methods).
MUTATING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "update",
        "setdefault",
        "popitem",
        "sort",
        "reverse",
        "add",
        "discard",
        "put",
    }
)
# Methods that keep their argument in a container.
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "put", "setdefault"})


def enclosing_loops(
    ancestors: Sequence[cst.CSTNode],
) -> list[tuple[cst.For | cst.While, list[cst.CSTNode]]]:
    """The loops of the function whose body holds the node being visited (the last of
    ``ancestors``' children), innermost first, each with the nodes from its body down to it."""
    found: list[tuple[cst.For | cst.While, list[cst.CSTNode]]] = []
    for i in range(len(ancestors) - 1, -1, -1):
        node = ancestors[i]
        if isinstance(node, COMPREHENSIONS):
            return []  # each element is its own tensor
        if isinstance(node, SCOPES):
            break
        if isinstance(node, (cst.For, cst.While)):
            if i + 1 >= len(ancestors) or ancestors[i + 1] is not node.body:
                continue  # the iterable, the test, the else clause
            if isinstance(node, cst.For) and tiny_iterable(node.iter):
                break
            found.append((node, list(ancestors[i + 1 :])))
    return found


def loop_changes(
    context: FileContext, loop: cst.For | cst.While, provenance: Provenance, frame: Frame
) -> LoopChanges:
    """What ``loop``'s body changes (computed once per loop and file)."""
    summaries = context.shared(_LOOPS, dict)
    if loop not in summaries:
        collector = LoopWrites(provenance, frame)
        if isinstance(loop, cst.For):
            collector.bind_target(loop.target)
        visit_read_only(loop.body, collector)
        summaries[loop] = collector.summary
    return summaries[loop]


def every_iteration(path: list[cst.CSTNode], summary: LoopChanges) -> bool:
    """Whether the copy runs on every iteration: no test of what the loop changes on the
    way to it, and no branch that leaves the loop (``return``, ``break``, ``raise``)."""
    for i, node in enumerate(path):
        if isinstance(node, (cst.If, cst.IfExp, cst.While)) and picks_iterations(node.test):
            reads = Reads(None, None)
            reads.scan(node.test)
            if reads.depends_on(summary):
                return False
        if isinstance(node, (cst.Return, cst.Raise)):
            return False
        if (
            isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite))
            and i > 0
            and any(_leaves(s) for s in node.body)
        ):
            return False
    return True


def picks_iterations(test: cst.BaseExpression) -> bool:
    """Whether a test may pick out one iteration or a few (``i == 0``, ``first``,
    ``not done``), rather than filter items (``x is not None``, ``isinstance(x, T)``,
    ``n > 0``)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return picks_iterations(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return picks_iterations(test.left) or picks_iterations(test.right)
    if isinstance(test, (cst.Name, cst.Attribute, cst.Subscript)):
        return True  # a flag
    if isinstance(test, cst.Comparison):
        return any(isinstance(c.operator, cst.Equal) for c in test.comparisons)
    return False


def _leaves(statement: cst.CSTNode) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return any(isinstance(s, (cst.Break, cst.Return, cst.Raise)) for s in statement.body)
    return False


@dataclass
class LoopChanges:
    """What a loop's body changes."""

    bound: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    # Names whose object the body changes in place (``x.add_()``, ``x[i] = ...``).
    changed_names: set[str] = field(default_factory=set)
    # Names passed to a plain function (``apply(fn, buf)``): it may write them, as an output.
    passed_to_functions: set[str] = field(default_factory=set)


def chain(node: cst.BaseExpression) -> str | None:
    """``a``, ``a.b.c``; a subscript stands for its container (``a.b[i]`` is ``a.b``)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = chain(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    if isinstance(node, cst.Subscript):
        return chain(node.value)
    return None


def _plain_chain(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` made of names and attributes only."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _plain_chain(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def _overlap(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


class LoopWrites(OwnScopeVisitor):
    """The names a loop body binds and the objects it writes (see :class:`LoopChanges`)."""

    def __init__(
        self, provenance: Provenance, frame: Frame, entered: set[int] | None = None
    ) -> None:
        self.provenance = provenance
        self.frame = frame
        self.summary = LoopChanges()
        # The methods whose writes this walk has read already (shared with the walks of the
        # methods it calls): each is read once, and methods that call each other end.
        self.entered: set[int] = set() if entered is None else entered

    def bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.summary.bound.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value)
        else:
            self._write(target)

    def _write(self, target: cst.BaseExpression) -> None:
        written = chain(target)
        if written is not None:
            self.summary.written.add(written)
            self.summary.changed_names.add(written.split(".", 1)[0])

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.summary.bound.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.summary.bound.add(node.name.value)
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.bind_target(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bind_target(node.target)
        if not isinstance(node.target, cst.Name):
            return
        # ``x += y`` on a tensor or list changes the object in place, too.
        self.summary.changed_names.add(node.target.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bind_target(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bind_target(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bind_target(node.name.name)

    def visit_Del(self, node: cst.Del) -> None:
        self.bind_target(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name = node.asname.name if node.asname is not None else node.name
        if isinstance(name, cst.Name):
            self.summary.bound.add(name.value)
        elif isinstance(name, cst.Attribute):
            root = chain(name)
            if root is not None:
                self.summary.bound.add(root.split(".", 1)[0])

    def visit_Global(self, node: cst.Global) -> None:
        self.summary.bound.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.summary.bound.update(n.name.value for n in node.names)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                self._write(arg.value)
        if isinstance(func, cst.Name) and func.value not in PURE_BUILTINS:
            self.summary.passed_to_functions.update(
                arg.value.value for arg in node.args if isinstance(arg.value, cst.Name)
            )
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if (method.endswith("_") and not method.endswith("__")) or method in (MUTATING_METHODS):
                self._write(func.value)
            self._method_writes(func)
        name = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Name):
            name = func.value
        if name is not None and name.endswith("_") and not name.endswith("__"):
            first = first_positional(node)
            if first is not None and not isinstance(func, cst.Attribute):
                self._write(first)  # ``zeros_(w)``
            elif first is not None and self.provenance.qualify(func) is not None:
                self._write(first)  # ``torch.nn.init.zeros_(w)``

    def _method_writes(self, func: cst.Attribute) -> None:
        """``self.m(...)`` of a method of the class: what it assigns to ``self``'s attributes,
        and what it changes in place."""
        frame = self.frame
        if (
            frame.cls is None
            or not isinstance(func.value, cst.Name)
            or func.value.value != frame.self_name
        ):
            return
        method = self.provenance.index.methods.get(frame.cls, {}).get(func.attr.value)
        if method is None or id(method) in self.entered:
            return  # unknown, or its writes are in the summary already (or on their way)
        self.entered.add(id(method))
        inner = LoopWrites(self.provenance, self.provenance.index.frame_of(method), self.entered)
        visit_read_only(method.body, inner)
        self_name = frame.self_name
        for written in inner.summary.written:
            if written.split(".", 1)[0] == inner.frame.self_name:
                self.summary.written.add(self_name + written[len(inner.frame.self_name) :])


class Reads(cst.CSTVisitor):
    """The names and attribute chains an expression reads, and whether its calls are pure."""

    def __init__(self, provenance: Provenance | None, frame: Frame | None) -> None:
        self.provenance = provenance
        self.frame = frame
        self.names: set[str] = set()
        self.chains: set[str] = set()
        self.pure = True
        self._root: cst.CSTNode | None = None

    def scan(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Call) and self._root is None:
            self._root = node
            if isinstance(node.func, cst.Attribute):
                visit_read_only(node.func.value, self)
            for arg in node.args:
                visit_read_only(arg.value, self)
            return
        visit_read_only(node, self)

    def depends_on(self, summary: LoopChanges) -> bool:
        if self.names & summary.bound:
            return True
        return any(_overlap(r, w) for r in self.chains for w in summary.written)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        self.chains.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        found = _plain_chain(node)
        if found is None:
            return True  # ``f(x).attr``, ``x[i].attr``: read what it is made of
        self.chains.add(found)
        self.names.add(found.split(".", 1)[0])
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit_read_only(node.value, self)
        return False  # a keyword's name is not a read

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.pure = False
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if node is self._root or self.provenance is None:
            return
        if not self._pure(node):
            self.pure = False

    def _pure(self, node: cst.Call) -> bool:
        assert self.provenance is not None and self.frame is not None
        func = node.func
        qualified = self.provenance.qualify(func)
        if qualified is not None:
            return qualified in PURE_TORCH or qualified.startswith("math.")
        if isinstance(func, cst.Name):
            return func.value in PURE_BUILTINS and not self.provenance.bindings(self.frame).of(
                func.value
            )
        if isinstance(func, cst.Attribute):
            return func.attr.value in PURE_METHODS
        return False


def result_kept(
    ancestors: Sequence[cst.CSTNode],
    node: cst.Call,
    statement: cst.CSTNode | None,
    summary: LoopChanges,
) -> bool:
    """Whether each iteration keeps or changes its own copy: stored in a container or an
    attribute, or bound to a name the loop changes in place."""
    parent = ancestors[-1] if ancestors else None
    grand = ancestors[-2] if len(ancestors) > 1 else None
    if (
        isinstance(parent, cst.Arg)
        and isinstance(grand, cst.Call)
        and isinstance(grand.func, cst.Attribute)
        and grand.func.attr.value in STORING_METHODS
    ):
        return True
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is node:
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else [small.target]
                )
                for target in targets:
                    if not isinstance(target, cst.Name):
                        return True
                    if target.value in summary.changed_names | summary.passed_to_functions:
                        return True
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.Yield,)):
                return True
    return False

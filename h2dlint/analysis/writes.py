"""The buffer behind a view expression, and the host writes to buffers in one function.

Moved out of ``views.py`` (layouts and view facts) as it was; ``shared_function_writes`` gives
every rule the same writes of a function, computed once per file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.views import (
    PERMUTING_ATTRIBUTES,
    PERMUTING_VIEW_METHODS,
    SAME_LAYOUT_VIEW_METHODS,
    STRIDED_VIEW_METHODS,
)
from h2dlint.context import FileContext, SharedKey
from h2dlint.imports import dotted_name
from h2dlint.walk import OwnScopeVisitor, ReadOnlyVisitor, visit_read_only

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource
    from h2dlint.analysis.frames import Frame
    from h2dlint.imports import ImportTable


# -- aliasing: the buffer a view reads, and writes to it ----------------------------------------
#
# Making a copy from pinned memory asynchronous is only correct when the host leaves the pinned
# buffer alone until the copy has run. These helpers find the buffer behind a view expression and
# the host writes to it in one function, so that a rule can tell a buffer rewritten right after the
# copy (the blocking copy is what keeps that code correct) from one that is not.

ALIAS_DEPTH = 4


# Methods whose result shares (or, on the host, may share) the receiver's memory.
ALIASING_METHODS = (
    STRIDED_VIEW_METHODS
    | SAME_LAYOUT_VIEW_METHODS
    | PERMUTING_VIEW_METHODS
    | frozenset(
        {
            "narrow",
            "select",
            "numpy",
            "reshape",
            "flatten",
            "unflatten",
            "ravel",
            "contiguous",
            "cpu",
            "split",
            "chunk",
            "unbind",
        }
    )
)


def view_root(node: cst.BaseExpression) -> str | None:
    """The dotted name of the buffer a view expression reads (``self.buf`` for
    ``self.buf[:, :n].T``, ``buf`` for ``buf.narrow(1, 0, n)``), or None."""
    while True:
        if isinstance(node, cst.Subscript) or (
            isinstance(node, cst.Attribute) and node.attr.value in (*PERMUTING_ATTRIBUTES, "data")
        ):
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ALIASING_METHODS
        ):
            node = node.func.value
        else:
            break
    return dotted_name(node)


def buffer_roots(provenance: FactSource, node: cst.BaseExpression, frame: Frame) -> set[str]:
    """Every name under which the memory ``node`` reads may be written in ``frame``: its root,
    and, for a local name bound to a view or alias of another buffer, that buffer's root too."""
    roots: set[str] = set()
    pending = [(view_root(node), 0)]
    bindings = provenance.bindings(frame)
    while pending:
        root, depth = pending.pop()
        if root is None or root in roots:
            continue
        roots.add(root)
        if "." in root or depth >= ALIAS_DEPTH:
            continue
        for value in bindings.of(root):
            if value is not None:
                pending.append((view_root(value), depth + 1))
    return roots


def _in_place(method: str) -> bool:
    return method.endswith("_") and not method.startswith("_")


@dataclass(frozen=True)
class Write:
    """A host write to a buffer: its root, the statement it is in (by source order), the small
    statement's index in that line, and the loops around it."""

    root: str
    statement: int
    small: int
    loops: frozenset[int]


@dataclass
class FunctionWrites:
    """The writes in one function (not in nested functions or classes), and where each statement
    is: its source order and the loops around it."""

    writes: list[Write] = field(default_factory=list)
    statements: dict[cst.CSTNode, tuple[int, frozenset[int]]] = field(default_factory=dict)

    def written_after(self, statement: cst.CSTNode, small: int, roots: set[str]) -> bool:
        """Whether one of ``roots`` is written after the small statement ``small`` of
        ``statement`` runs: later in the function, later on the same line, or anywhere in a loop
        around it (the next iteration)."""
        where = self.statements.get(statement)
        if where is None:
            return False
        order, loops = where
        for write in self.writes:
            if write.root not in roots:
                continue
            if write.statement > order or (write.statement == order and write.small > small):
                return True
            if loops & write.loops:
                return True
        return False

    def written(self, roots: set[str]) -> bool:
        """Whether one of ``roots`` is written anywhere in the function."""
        return any(write.root in roots for write in self.writes)


class WriteCollector(OwnScopeVisitor, ReadOnlyVisitor):
    def __init__(self, root: cst.CSTNode, imports: ImportTable) -> None:
        self.root = root
        self.imports = imports
        self.result = FunctionWrites()
        self.statement = -1
        self.small = 0
        self.loops: list[int] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.statement = len(self.result.statements)
            self.small = 0
            self.result.statements[node] = (self.statement, frozenset(self.loops))
            if isinstance(node, (cst.For, cst.While)):
                self.loops.append(self.statement)
        elif isinstance(node, cst.BaseSmallStatement):
            self.small += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, (cst.For, cst.While)) and self.loops:
            self.loops.pop()

    def _add(self, target: cst.BaseExpression) -> None:
        root = view_root(target)
        if root is not None:
            self.result.writes.append(
                Write(root, self.statement, self.small, frozenset(self.loops))
            )

    def _target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript):
            self._add(target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)  # ``buf += x`` adds in place

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        first = node.args[0].value if node.args and node.args[0].keyword is None else None
        qualified = self.imports.qualify(func)
        if qualified is not None:
            # ``torch.nn.init.zeros_(w)``, ``np.copyto(dst, src)``: the first argument is written.
            method = qualified.rsplit(".", 1)[-1]
            if first is not None and (_in_place(method) or method == "copyto"):
                self._add(first)
        elif isinstance(func, cst.Attribute) and _in_place(func.attr.value):
            self._add(func.value)
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                self._add(arg.value)


def function_writes(function: cst.FunctionDef | cst.Module, imports: ImportTable) -> FunctionWrites:
    """Every host write to a named buffer in ``function`` (not in nested functions or classes):
    subscript assignments, augmented assignments, in-place methods (``copy_``, ``fill_``, ...),
    ``out=`` arguments and ``np.copyto``."""
    collector = WriteCollector(function, imports)
    visit_read_only(function, collector)
    return collector.result


FUNCTION_WRITES: SharedKey[FunctionWrites] = SharedKey("function writes")


def shared_function_writes(
    context: FileContext, function: cst.FunctionDef | cst.Module
) -> FunctionWrites:
    """:func:`function_writes` of ``function``, computed once per file for every rule."""
    return context.shared(
        FUNCTION_WRITES, lambda: function_writes(function, context.imports), function
    )


def written_by_other_methods(
    context: FileContext, provenance: FactSource, names: set[str], frame: Frame
) -> set[str]:
    """The ``self.<attr>`` buffers among ``names`` that another method of the class than
    ``__init__`` writes: the next call of that method races an asynchronous copy."""
    if frame.cls is None or frame.self_name is None:
        return set()
    prefix = frame.self_name + "."
    attrs = {name[len(prefix) :] for name in names if name.startswith(prefix)}
    if not attrs:
        return set()
    written: set[str] = set()
    for method_name, method in provenance.index.methods.get(frame.cls, {}).items():
        if method_name == "__init__" or method is frame.function:
            continue
        self_name = provenance.index.frame_of(method).self_name
        if self_name is None:
            continue
        for write in shared_function_writes(context, method).writes:
            head, _, attr = write.root.partition(".")
            if head == self_name and attr in attrs:
                written.add(prefix + attr)
    return written

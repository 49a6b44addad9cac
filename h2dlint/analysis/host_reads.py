"""What the host does with a host tensor at one place of the code (HTD401): read its data now,
only look at its metadata, hand it back to the device, or let it escape where this analysis
cannot follow.

Uses are judged on the expression around the tensor after views of it (``y[0]``, ``y.view(-1)``,
``y.numpy()``) and dtype conversions (``y.float()``, a no-op when ``y`` is float32 already): a
view reads nothing by itself, what is done with the view does.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.races import host_sync
from h2dlint.analysis.sync_basics import LEAVING, leaves
from h2dlint.analysis.targets import Target
from h2dlint.analysis.views import PERMUTING_ATTRIBUTES
from h2dlint.analysis.writes import ALIASING_METHODS
from h2dlint.context import SharedKey
from h2dlint.imports import dotted_name
from h2dlint.walk import OwnScopeVisitor, parent_map, visit_read_only

if TYPE_CHECKING:
    from h2dlint.analysis.frames import Frame
    from h2dlint.analysis.provenance import Provenance
    from h2dlint.context import FileContext


class Use(enum.Enum):
    READ = "read"  # the host reads (or writes) the data now
    META = "meta"  # shape, dtype, device...: no data touched
    DEVICE = "device"  # copied back to a device, ordered on the stream after the copy
    BIND = "bind"  # bound to another name: follow it
    ESCAPE = "escape"  # returned, stored, passed to code not seen: stop following


META_ATTRIBUTES = frozenset(
    {
        "shape",
        "dtype",
        "device",
        "ndim",
        "is_cuda",
        "is_pinned",
        "requires_grad",
        "size",
        "dim",
        "numel",
        "data_ptr",
        "element_size",
        "nbytes",
        "itemsize",
        "stride",
        "storage_offset",
        "is_contiguous",
        "record_stream",
        "get_device",
        "layout",
        "names",
        "nelement",
    }
)
META_FUNCTIONS = frozenset({"len", "isinstance", "type", "id", "hasattr", "getattr", "callable"})
# Builtins that read their argument's data (or iterate it).
READING_BUILTINS = frozenset(
    {
        "int",
        "float",
        "bool",
        "complex",
        "list",
        "tuple",
        "set",
        "dict",
        "sum",
        "max",
        "min",
        "sorted",
        "print",
        "str",
        "repr",
        "format",
        "enumerate",
        "zip",
        "iter",
        "next",
        "any",
        "all",
        "map",
        "filter",
        "abs",
        "round",
        "reversed",
        "hash",
    }
)
READING_MODULES = ("torch.", "numpy.", "np.", "math.", "json.", "pickle.", "struct.")
# dtype conversions and ``contiguous()``: a copy that reads the data when it converts, the same
# tensor when nothing needs converting (``y.float()`` of a float32 ``y``). Followed like views:
# what is done with the result decides (``y.float().sum()`` reads, ``return y.float()`` not).
CONVERSIONS = frozenset(
    {"float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "contiguous"}
)
_ALIASING = frozenset(ALIASING_METHODS) | CONVERSIONS
_VIEW_ATTRIBUTES = frozenset({*PERMUTING_ATTRIBUTES, "data"})


def _strip_views(
    node: cst.BaseExpression, parents: dict[cst.CSTNode, cst.CSTNode]
) -> cst.BaseExpression:
    """The outermost expression of views of ``node``: ``y[0]``, ``y.view(-1)``, ``y.numpy()``,
    ``y.T``."""
    current = node
    while True:
        parent = parents.get(current)
        if isinstance(parent, cst.Subscript) and parent.value is current:
            current = parent
            continue
        if isinstance(parent, cst.Attribute) and parent.value is current:
            if parent.attr.value in _VIEW_ATTRIBUTES:
                current = parent
                continue
            call = parents.get(parent)
            if (
                parent.attr.value in _ALIASING
                and isinstance(call, cst.Call)
                and call.func is parent
            ):
                current = call
                continue
        return current


def classify(
    node: cst.BaseExpression,
    parents: dict[cst.CSTNode, cst.CSTNode],
    provenance: Provenance,
    frame: Frame,
) -> tuple[Use, cst.BaseExpression]:
    """What the host does with the tensor ``node`` (a name, or a copy's result), and the
    expression that does it (reported for a read; bound to a name for BIND)."""
    expr = _strip_views(node, parents)
    parent = parents.get(expr)
    if isinstance(parent, cst.Attribute) and parent.value is expr:
        attr = parent.attr.value
        call = parents.get(parent)
        if attr in META_ATTRIBUTES:
            return Use.META, parent
        if attr == "cuda" or (
            attr == "to"
            and isinstance(call, cst.Call)
            and provenance.to_target(call, frame) is Target.DEVICE
        ):
            return Use.DEVICE, parent
        if attr == "copy_" and isinstance(call, cst.Call) and call.args:
            # ``y.copy_(gpu_t, non_blocking=True)``: another device-to-host copy into it, ordered
            # on the stream after the first; from host memory it is a host write now.
            source = call.args[0].value
            if provenance.where(source, frame) is Where.DEVICE:
                return Use.DEVICE, parent
            if provenance.where(source, frame).on_host:
                return Use.READ, parent
            return Use.ESCAPE, parent
        return Use.READ, parent
    if isinstance(parent, cst.Arg):
        call = parents.get(parent)
        if not isinstance(call, cst.Call):
            return Use.ESCAPE, expr
        return _argument_use(call, parent, provenance, frame), call
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation)):
        return Use.READ, parent
    if isinstance(parent, cst.ComparisonTarget):
        return Use.READ, parents.get(parent, parent)  # type: ignore[return-value]
    if isinstance(parent, cst.Comparison):
        return Use.READ, parent
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is expr:
        return Use.READ, expr
    if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert)) and parent.test is expr:
        return Use.READ, expr
    if isinstance(parent, cst.FormattedStringExpression):
        return Use.READ, expr
    if isinstance(parent, (cst.SubscriptElement, cst.Index)):
        return Use.READ, expr
    if isinstance(parent, cst.AugAssign):
        return Use.READ, expr
    if isinstance(parent, cst.Assign) and parent.value is expr:
        targets = [t.target for t in parent.targets]
        if all(isinstance(t, cst.Name) for t in targets):
            return Use.BIND, expr
        return Use.ESCAPE, expr
    if isinstance(parent, cst.AssignTarget):
        return Use.READ, expr  # ``y[0] = 1``: a host write into memory the copy will write
    return Use.ESCAPE, expr


def _argument_use(call: cst.Call, arg: cst.Arg, provenance: Provenance, frame: Frame) -> Use:
    func = call.func
    if arg.keyword is not None and arg.keyword.value == "out":
        return Use.READ  # written on the host
    if isinstance(func, cst.Attribute) and func.attr.value == "copy_":
        # ``dst.copy_(y)``: to a device it is ordered after the copy; to the host it reads now.
        where = provenance.where(func.value, frame)
        if where.on_host:
            return Use.READ
        return Use.DEVICE if where is Where.DEVICE else Use.ESCAPE
    qualified = provenance.qualify(func) or ""
    name = func.value if isinstance(func, cst.Name) else None
    if name in META_FUNCTIONS:
        return Use.META
    if name in READING_BUILTINS and qualified in ("", name, f"builtins.{name}"):
        return Use.READ
    if qualified.startswith(READING_MODULES) and not qualified.startswith("torch.cuda."):
        return Use.READ
    return Use.ESCAPE


# -- the first host read after a copy ---------------------------------------------------------
# Each function's parent map, per file.
_PARENTS: SharedKey[dict[cst.CSTNode, cst.CSTNode]] = SharedKey("parents in a function")

_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_BLOCKS = (cst.IndentedBlock, cst.Module, cst.SimpleStatementSuite)


# Statements after which nothing more of the block runs.
class _Uses(OwnScopeVisitor):
    """In source order: the uses of ``names`` in one statement, and whether it may sync."""

    def __init__(self, names: frozenset[str], parents: dict[cst.CSTNode, cst.CSTNode]) -> None:
        self.names = names
        self.parents = parents
        self.uses: list[cst.BaseExpression] = []
        self.syncs = False
        self.rebound: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if host_sync(node, self.names):
            self.syncs = True

    def _match(self, node: cst.Name | cst.Attribute) -> bool:
        parent = self.parents.get(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return False
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return False
        dotted = dotted_name(node)
        if dotted not in self.names:
            return False
        if isinstance(parent, (cst.AssignTarget, cst.For, cst.CompFor, cst.AsName)) and (
            getattr(parent, "target", None) is node or getattr(parent, "name", None) is node
        ):
            self.rebound.add(dotted)
            return False
        if isinstance(parent, cst.Del):
            self.rebound.add(dotted)
            return False
        if isinstance(parent, cst.Element):
            grandparent = self.parents.get(parent)
            # ``a, y = ...``, ``for a, y in``
            owner = self.parents.get(grandparent) if grandparent is not None else None
            if isinstance(owner, (cst.AssignTarget, cst.For)):
                self.rebound.add(dotted)
                return False
        self.uses.append(node)
        return True

    def visit_Name(self, node: cst.Name) -> None:
        self._match(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return not self._match(node)


def _following(
    statement: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]
) -> Iterator[cst.CSTNode]:
    """The statements that run after ``statement``: the rest of its block, then the rest of
    each enclosing block up to the function (leaving a loop goes on after it)."""
    current = statement
    while True:
        block = parents.get(current)
        if not isinstance(block, _BLOCKS):
            return
        body = list(block.body)
        index = next((i for i, s in enumerate(body) if s is current), None)
        if index is None:
            return
        yield from body[index + 1 :]
        owner: cst.CSTNode | None = block
        while True:
            owner = parents.get(owner) if owner is not None else None
            if owner is None or isinstance(owner, _NESTED):
                return
            if isinstance(owner, cst.BaseCompoundStatement) and isinstance(
                parents.get(owner), _BLOCKS
            ):
                break
        current = owner


def first_host_read(
    context: FileContext,
    call: cst.Call,
    copied: frozenset[str],
    provenance: Provenance,
    frame: Frame,
) -> tuple[cst.CSTNode, str] | None:
    """The first host read of the result of ``call``, a copy to the host, before a sync, and
    the name read. ``copied``: the names its result goes by (empty for ``.to``/``.cpu``, whose
    result is followed from the expression)."""
    parents = context.shared(_PARENTS, lambda: parent_map(frame.function), frame.function)
    names = set(copied)
    shown = next(iter(sorted(names)), "")
    if not names:
        use, expr = classify(call, parents, provenance, frame)
        if use is Use.READ:
            return call, "the result"
        if use is not Use.BIND:
            return None
        assign = parents.get(expr)
        assert isinstance(assign, cst.Assign)
        names = {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
        shown = sorted(names)[0]
    statement: cst.CSTNode | None = call
    while statement is not None and not isinstance(statement, cst.BaseSmallStatement):
        statement = parents.get(statement)
        if isinstance(statement, (cst.BaseCompoundStatement, *_NESTED)):
            return None  # a copy in a loop header or a condition: not followed
    line = parents.get(statement) if statement is not None else None
    if statement is None or not isinstance(line, cst.SimpleStatementLine):
        return None
    if isinstance(statement, LEAVING):
        return None  # ``return host.copy_(...)``: nothing after it runs here
    smalls = list(line.body)
    units = [*smalls[smalls.index(statement) + 1 :], *_following(line, parents)]
    for unit in units:
        uses = _Uses(frozenset(names), parents)
        visit_read_only(unit, uses)
        if uses.syncs:
            return None
        for node in uses.uses:
            use, expr = classify(node, parents, provenance, frame)
            if use is Use.READ:
                return expr, dotted_name(node) or shown
            if use is Use.ESCAPE:
                return None
            if use is Use.BIND:
                assign = parents.get(expr)
                if isinstance(assign, cst.Assign):
                    names |= {
                        t.target.value for t in assign.targets if isinstance(t.target, cst.Name)
                    }
        names -= uses.rebound
        if not names or leaves(unit):
            return None
    return None

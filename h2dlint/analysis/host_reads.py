"""What the host does with a host tensor at one place of the code (HTD401): read its data now,
only look at its metadata, hand it back to the device, or let it escape where this analysis
cannot follow.

Uses are judged on the expression around the tensor after views of it (``y[0]``, ``y.view(-1)``,
``y.numpy()``) and dtype conversions (``y.float()``, a no-op when ``y`` is float32 already): a
view reads nothing by itself, what is done with the view does.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.targets import Target
from h2dlint.analysis.views import PERMUTING_ATTRIBUTES
from h2dlint.analysis.writes import ALIASING_METHODS

if TYPE_CHECKING:
    from h2dlint.analysis.frames import Frame
    from h2dlint.analysis.provenance import Provenance


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


def parent_map(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """Every node under ``root`` (not in nested functions or classes) to its parent."""
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

"""Loops and comprehensions that walk a tensor row by row, and the host reads (syncs) in them
(HTD201).

A *row walk* is a ``for`` loop or a comprehension whose iteration goes over a tensor one row at a
time:

- ``for r in t`` / ``enumerate(t)`` / ``t.unbind()``: each row is a tensor (0-d for a 1-D ``t``),
  on ``t``'s device;
- ``for i in range(...)`` with ``t[i]`` read in the body;
- ``for r in t.tolist()`` (also after ``.cpu()``): one transfer, then Python rows.

A *row sync* reads a row's value on the host: ``.item()``, ``.tolist()``, ``int()``, ``float()``,
``bool()`` of an expression of the row, a copy of it to the host (``.cpu()``, ``.to("cpu")``
blocking), or a tensor of the row as the test of an ``if`` (``if (x[i] > 0).any():``).
On a CUDA tensor each of them synchronises (measured on
an H200: 64 rows with ``.item()`` each 1.73 ms, one vectorised ``.tolist()`` 0.05 ms). Reading
only the row's metadata (``.shape``, ``.size()``, ``len()``, ``.dtype``) is not a sync.

*Row reductions*: comprehensions whose element is the product or sum of the whole row
(``torch.prod(r).item()``, ``r.sum().item()``, ``math.prod(r)`` over ``t.tolist()``,
``t * h * w for t, h, w in grid.tolist()``), which one ``t.prod(dim=-1).tolist()`` replaces.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

import libcst as cst

from h2dlint.analysis.arguments import host_named, keyword, positional
from h2dlint.analysis.classes import class_of, named_class
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.analysis.provenance import Provenance, annotation_is
from h2dlint.imports import statements
from h2dlint.walk import visit_read_only

SYNC_METHODS = frozenset({"item", "tolist"})
SYNC_BUILTINS = frozenset({"int", "float", "bool", "complex"})
# Reading these of a tensor does not copy its data to the host.
METADATA_ATTRIBUTES = frozenset(
    {
        "shape",
        "ndim",
        "dtype",
        "device",
        "is_cuda",
        "layout",
        "requires_grad",
        "is_sparse",
        "is_quantized",
        "is_meta",
        "names",
        "grad_fn",
        "is_leaf",
    }
)
METADATA_METHODS = frozenset(
    {
        "size",
        "dim",
        "numel",
        "nelement",
        "ndimension",
        "stride",
        "element_size",
        "is_contiguous",
        "is_floating_point",
        "is_complex",
        "get_device",
        "data_ptr",
        "storage_offset",
    }
)
METADATA_FUNCTIONS = frozenset({"len", "isinstance", "type", "id", "repr", "str"})
# Methods between a tensor and ``.tolist()`` that only move it to the host.
TO_HOST_METHODS = frozenset({"cpu", "detach", "numpy"})
NESTED_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


class Walk(enum.Enum):
    ROWS = "rows of a tensor"
    INDEX = "indices into tensors"
    LIST = "rows of a tensor's .tolist()"


@dataclass(frozen=True)
class RowLoop:
    """How a loop walks a tensor. ``tensor`` is the walked tensor (None for an index loop, where
    the tensors are the ones indexed in the body); ``names`` are the loop's names bound to a row
    (to the index, for an index loop); ``target`` is the target the rows are bound to."""

    walk: Walk
    tensor: cst.BaseExpression | None
    names: frozenset[str]
    target: cst.BaseExpression
    # The arguments of ``range(...)`` of an index loop.
    bounds: tuple[cst.BaseExpression, ...] = ()
    # For a ``.tolist()`` walk: the tensor went through ``.cpu()``/``.detach()``/``.numpy()``
    # first, tensor methods that prove it is a tensor (not a numpy array).
    via_tensor_method: bool = False
    # Local names the body binds to a tensor computed from a row (``row = torch.as_tensor(t[i],
    # dtype=...)``), with the tensor whose row it is.
    derived: tuple[tuple[str, cst.BaseExpression], ...] = ()


@dataclass(frozen=True)
class RowSync:
    """A host read of a row: ``call`` (``.item()``, ``int(...)``, ..., or the test of an
    ``if``) reads ``tensor``."""

    call: cst.BaseExpression
    tensor: cst.BaseExpression
    what: str


def target_names(target: cst.BaseExpression) -> frozenset[str]:
    if isinstance(target, cst.Name):
        return frozenset({target.value})
    if isinstance(target, (cst.Tuple, cst.List)):
        return frozenset(n for element in target.elements for n in target_names(element.value))
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return frozenset()


def strip_to_host(node: cst.BaseExpression) -> cst.BaseExpression:
    """``t`` for ``t.cpu()``, ``t.detach().cpu()``, ``t.cpu().numpy()``."""
    while (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in TO_HOST_METHODS
    ):
        node = node.func.value
    return node


def row_loop(iterable: cst.BaseExpression, target: cst.BaseExpression) -> RowLoop | None:
    """How ``for target in iterable`` walks a tensor, if it may."""
    if isinstance(iterable, cst.Call):
        func = iterable.func
        args = positional(iterable)
        if isinstance(func, cst.Name):
            if func.value == "enumerate" and args and len(iterable.args) <= 2:
                if isinstance(target, cst.Tuple) and len(target.elements) == 2:
                    return row_loop(args[0].value, target.elements[1].value)
                return None
            if func.value == "range" and isinstance(target, cst.Name):
                bounds = tuple(a.value for a in args)
                return RowLoop(Walk.INDEX, None, frozenset({target.value}), target, bounds)
            return None
        if isinstance(func, cst.Attribute):
            if func.attr.value == "tolist" and not iterable.args:
                tensor = strip_to_host(func.value)
                names = target_names(target)
                stripped = tensor is not func.value
                return RowLoop(Walk.LIST, tensor, names, target, via_tensor_method=stripped)
            if func.attr.value == "unbind" and _dim_zero(iterable):
                return RowLoop(Walk.ROWS, func.value, target_names(target), target)
        return None
    if isinstance(iterable, (cst.Name, cst.Attribute, cst.Subscript)):
        return RowLoop(Walk.ROWS, iterable, target_names(target), target)
    return None


def _dim_zero(call: cst.Call) -> bool:
    if not call.args:
        return True
    if len(call.args) != 1:
        return False
    value = call.args[0].value
    keyword_ok = call.args[0].keyword is None or call.args[0].keyword.value == "dim"
    return keyword_ok and isinstance(value, cst.Integer) and value.value == "0"


# -- which expressions read a row ----------------------------------------------------------------


def _is_metadata(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
    """Whether ``node`` (a child of ``parent``) is only looked at for its metadata, or is no
    reference at all (the name of an attribute or of a keyword argument)."""
    if isinstance(parent, cst.Attribute):
        if parent.attr is node:
            return True
        if parent.value is node:
            return parent.attr.value in METADATA_ATTRIBUTES or parent.attr.value in METADATA_METHODS
    return isinstance(parent, cst.Arg) and parent.keyword is node


class _RowReads(cst.CSTVisitor):
    """Finds whether an expression reads a row's value: a row name (row walks), or a subscript
    by the index (index loops), not under a metadata access."""

    def __init__(self, loop: RowLoop) -> None:
        self.loop = loop
        self.stack: list[cst.CSTNode] = []
        self.bases: list[cst.BaseExpression] = []
        self.reads = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        parent = self.stack[-1] if self.stack else None
        if _is_metadata(node, parent):
            return False
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in METADATA_FUNCTIONS
        ):
            return False
        if isinstance(node, NESTED_SCOPES):
            return False
        if isinstance(node, cst.Name):
            for name, base in self.loop.derived:
                if node.value == name:
                    self.reads = True
                    self.bases.append(base)
        if self.loop.walk is Walk.INDEX:
            if isinstance(node, cst.Subscript) and _mentions(node.slice, self.loop.names):
                self.reads = True
                self.bases.append(_innermost_base(node))
                return False
        elif isinstance(node, cst.Name) and node.value in self.loop.names:
            self.reads = True
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


def _innermost_base(node: cst.Subscript) -> cst.BaseExpression:
    base = node.value
    while isinstance(base, cst.Subscript):
        base = base.value
    return base


class _Names(cst.CSTVisitor):
    """The names an expression refers to (not attribute or keyword names)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit_read_only(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit_read_only(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _mentions(node: cst.CSTNode | Sequence[cst.CSTNode], names: frozenset[str]) -> bool:
    collector = _Names()
    for part in (node,) if isinstance(node, cst.CSTNode) else node:
        visit_read_only(part, collector)
    return bool(collector.names & names)


def reads_row(expr: cst.BaseExpression, loop: RowLoop) -> list[cst.BaseExpression] | None:
    """The tensors whose row ``expr`` reads (the walked tensor, or the tensors indexed by the
    index), or None when it reads none."""
    finder = _RowReads(loop)
    visit_read_only(expr, finder)
    if not finder.reads:
        return None
    if loop.walk is Walk.INDEX:
        return finder.bases
    return [loop.tensor] if loop.tensor is not None else None


def host_copy(call: cst.Call) -> str | None:
    """``call`` as a blocking copy to the host (``x.cpu()``, ``x.to("cpu")``,
    ``x.to(device="cpu")``): how it is spelled, or None."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    if func.attr.value == "cpu" and not call.args:
        return "`.cpu()`"
    if func.attr.value != "to":
        return None
    blocking = not any(
        arg.keyword is not None
        and arg.keyword.value == "non_blocking"
        and not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
        for arg in call.args
    )
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value == "device":
            value = arg.value
            if isinstance(value, cst.SimpleString) and value.evaluated_value == "cpu":
                return '`.to("cpu")`' if blocking else None
            return None
    return None


def sync_of(call: cst.Call, loop: RowLoop) -> RowSync | None:
    """``call`` as a host read of one of ``loop``'s rows."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in SYNC_METHODS and not call.args:
        tensors = reads_row(func.value, loop)
        if tensors:
            return RowSync(call, tensors[0], f"`.{func.attr.value}()`")
        return None
    copy = host_copy(call)
    if copy is not None and isinstance(func, cst.Attribute):
        tensors = reads_row(func.value, loop)
        if tensors:
            return RowSync(call, tensors[0], copy)
        return None
    if isinstance(func, cst.Name) and func.value in SYNC_BUILTINS:
        args = positional(call)
        if len(call.args) == 1 and args:
            tensors = reads_row(args[0].value, loop)
            if tensors:
                return RowSync(call, tensors[0], f"`{func.value}()`")
    return None


class LoopBodyVisitor(cst.CSTVisitor):
    """Walks one loop's body: nested functions, classes and lambdas are not the loop's, and a
    branch taken once every N iterations (``if step % 100 == 0``) is not per iteration (its
    ``else`` is)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _every_n(self, node: cst.If) -> bool:
        """Whether ``node`` runs every N iterations; then only its ``else`` is walked."""
        if not has_modulo(node.test):
            return False
        if node.orelse is not None:
            visit_read_only(node.orelse, self)
        return True


class _SyncFinder(LoopBodyVisitor):
    """Row syncs in a loop body. Nested function bodies are not the loop's; a sync that reads a
    nested loop's own rows is that loop's; a branch taken once every N iterations
    (``if step % 100 == 0``) is not per row."""

    def __init__(self, loop: RowLoop) -> None:
        self.loop = loop
        self.found: list[RowSync] = []
        self.inner: list[frozenset[str]] = []

    def visit_If(self, node: cst.If) -> bool:
        if self._every_n(node):
            return False
        test = tensor_test(node.test)
        if test is not None:
            tensors = reads_row(test, self.loop)
            if tensors and not self._shadowed(test):
                self.found.append(RowSync(test, tensors[0], "a tensor as an `if` test"))
        return True

    def visit_For(self, node: cst.For) -> None:
        self.inner.append(target_names(node.target))

    def leave_For(self, original_node: cst.For) -> None:
        self.inner.pop()

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.inner.append(target_names(node.target))

    def leave_CompFor(self, original_node: cst.CompFor) -> None:
        self.inner.pop()

    def _shadowed(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` reads a nested loop's rows (or a shadowing name): not ours."""
        return bool(self.inner) and _mentions(node, frozenset().union(*self.inner))

    def visit_Call(self, node: cst.Call) -> None:
        sync = sync_of(node, self.loop)
        if sync is None or self._shadowed(node):
            return
        self.found.append(sync)


class _Modulo(cst.CSTVisitor):
    found = False

    def visit_Modulo(self, node: cst.Modulo) -> None:
        self.found = True


def has_modulo(node: cst.BaseExpression) -> bool:
    finder = _Modulo()
    visit_read_only(node, finder)
    return finder.found


# Words of a name in a test that says the branch is taken once every so many steps.
PERIOD_WORDS = ("interval", "every", "period", "freq")


def periodic_test(test: cst.BaseExpression) -> bool:
    """Whether an ``if`` test says its branch is taken once every N steps: a modulo
    (``step % 100 == 0``), or a comparison with an interval
    (``it - self.last_eviction == self.eviction_interval``, ``step >= self.next_every``)."""
    if has_modulo(test):
        return True
    if not isinstance(test, cst.Comparison):
        return False
    code = cst.Module([]).code_for_node(test).lower()
    return any(word in code for word in PERIOD_WORDS)


def with_derived(body: list[cst.CSTNode], loop: RowLoop) -> RowLoop:
    """``loop`` knowing the names its body binds to tensors computed from a row: ``r =
    torch.as_tensor(t[i], dtype=torch.long)``, ``g = row.to(torch.int64)``. A name bound to a
    host read of the row (``n = t[i].item()``) holds a Python value, not a row."""
    derived = dict(loop.derived)
    for node in body:
        for small in statements(node, into_definitions=False):
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                continue
            target = small.targets[0].target
            value = small.value
            if not isinstance(target, cst.Name) or target.value in loop.names:
                continue
            if isinstance(value, cst.Call) and explicit_sync(value) is not None:
                continue
            tensors = reads_row(value, loop)
            if tensors and not _host_value(value):
                derived.setdefault(target.value, tensors[0])
    if len(derived) == len(loop.derived):
        return loop
    return replace(loop, derived=tuple(derived.items()))


def _host_value(value: cst.BaseExpression) -> bool:
    """A Python value computed from a row, never a tensor: a display, a comprehension."""
    return isinstance(
        value, (cst.List, cst.Tuple, cst.ListComp, cst.DictComp, cst.Dict, cst.SimpleString)
    )


def row_syncs(body: list[cst.CSTNode], loop: RowLoop) -> list[RowSync]:
    """The row syncs in ``body`` (statements of a ``for``, or the parts of a comprehension)."""
    loop = with_derived(body, loop)
    finder = _SyncFinder(loop)
    for node in body:
        visit_read_only(node, finder)
    return finder.found


# -- tensors used as Python truth values --------------------------------------------------------

# Methods and ``torch.<name>`` functions that make a boolean mask of a tensor.
MASK_METHODS = frozenset(
    {
        "isnan",
        "isinf",
        "isfinite",
        "eq",
        "ne",
        "gt",
        "ge",
        "lt",
        "le",
        "logical_and",
        "logical_or",
        "logical_not",
        "bool",
        "isin",
    }
)
# Methods and ``torch.<name>`` functions whose result is a tensor on the input's device (a 0-d
# one for the reductions): used as a Python bool or number, each syncs. (``isin`` is left out
# of the truth values as it always was: a membership mask is tested with ``.any()``.)
VALUE_METHODS = (MASK_METHODS - {"isin"}) | frozenset(
    {
        "any",
        "all",
        "max",
        "min",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "sum",
        "prod",
        "mean",
        "norm",
        "count_nonzero",
        "abs",
        "float",
        "long",
        "int",
        "squeeze",
        "flatten",
        "softmax",
        "log_softmax",
        "sigmoid",
        "exp",
        "log",
        "sqrt",
        "clamp",
        "detach",
        "contiguous",
    }
)
# Tests of tensors that are Python bools already (no tensor as the truth value).
COMPARISON_OPERATORS = (
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)


# The methods ``tensor_test`` recognises: ``.any()``/``.all()``, and reductions compared.
REDUCTION_METHODS = frozenset({"max", "min", "sum", "amax", "amin", "mean", "norm"})
TEST_METHODS = frozenset({"any", "all"}) | REDUCTION_METHODS


def tensor_test(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The part of an ``if``/``while`` test that is surely a tensor when what it reads is one,
    so that Python calls ``bool()`` of it: ``t.any()``, ``(x > 0).all()``, ``torch.isnan(x)
    .any()``, ``x.max() > 0``, ``not done.all()``. Bare names and Python-looking comparisons
    (``n > 0`` of a count) are not: a name may hold a Python bool."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return tensor_test(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return tensor_test(test.left) or tensor_test(test.right)
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute):
        if test.func.attr.value in ("any", "all") and not _metadata_value(test.func.value):
            return test
        return None
    if isinstance(test, cst.Comparison) and all(
        isinstance(c.operator, COMPARISON_OPERATORS) for c in test.comparisons
    ):
        operands = [test.left, *(c.comparator for c in test.comparisons)]
        if any(_reduction_call(o) for o in operands):
            return test
    return None


def _reduction_call(node: cst.BaseExpression) -> bool:
    """``x.max()``, ``x.sum()``, ``x.abs().max()``: a tensor method that reduces."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in REDUCTION_METHODS
        and not _metadata_value(node.func.value)
    )


def _metadata_value(node: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.size()``, ``len(x)``, a list display: no tensor data."""
    if isinstance(node, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)):
        return True
    if isinstance(node, cst.Attribute) and node.attr.value in METADATA_ATTRIBUTES:
        return True
    if isinstance(node, cst.Subscript):
        return _metadata_value(node.value)
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in METADATA_METHODS:
            return True
        if isinstance(func, cst.Name) and func.value in METADATA_FUNCTIONS:
            return True
    return False


def value_where(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> Where:
    """Where the tensor ``node`` evaluates to is, also through comparisons, ``~``, ``not`` and
    value methods (``(x > 0).any()`` is where ``x`` is), and names bound to such values."""
    where = provenance.fact(node, frame).where
    if where is not Where.UNKNOWN or depth > 4:
        return where
    if isinstance(node, cst.Name):
        values = provenance.bindings(frame).reaching(node)
        if not values or any(v is None for v in values):
            return Where.UNKNOWN
        wheres = [value_where(provenance, v, frame, depth + 1) for v in values if v is not None]
        if all(w is Where.DEVICE for w in wheres):
            return Where.DEVICE
        return Where.HOST if all(w.on_host for w in wheres) else Where.UNKNOWN
    if isinstance(node, cst.Comparison):
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        return _device_first([value_where(provenance, o, frame, depth + 1) for o in operands])
    if isinstance(node, cst.UnaryOperation):
        return value_where(provenance, node.expression, frame, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        sides = [node.left, node.right]
        return _device_first([value_where(provenance, o, frame, depth + 1) for o in sides])
    if isinstance(node, cst.BooleanOperation):
        return _device_first(
            [
                value_where(provenance, node.left, frame, depth + 1),
                value_where(provenance, node.right, frame, depth + 1),
            ]
        )
    if isinstance(node, cst.Subscript):
        return value_where(provenance, node.value, frame, depth + 1)
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in VALUE_METHODS:
            return value_where(provenance, func.value, frame, depth + 1)
        qualified = provenance.qualify(func) or ""
        if qualified.startswith("torch.") and qualified[6:] in VALUE_METHODS:
            first = positional(node)
            if first:
                return value_where(provenance, first[0].value, frame, depth + 1)
    return Where.UNKNOWN


def _device_first(wheres: list[Where]) -> Where:
    """A result with a device operand is on the device; with only host operands on the host."""
    if any(w is Where.DEVICE for w in wheres):
        return Where.DEVICE
    known = [w for w in wheres if w is not Where.UNKNOWN]
    if known and len(known) == len(wheres):
        return Where.HOST
    return Where.UNKNOWN


# -- while loops: a sync per iteration -----------------------------------------------------------


@dataclass(frozen=True)
class IterationSync:
    """A host read of a tensor in a ``while`` loop: ``node`` (a call, or the loop's test) reads
    ``tensor`` on every iteration."""

    node: cst.BaseExpression
    tensor: cst.BaseExpression
    what: str


def explicit_sync(call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """``call`` as an explicit host read of a tensor: the tensor and how it is read
    (``t.item()``, ``t.tolist()``, ``t.cpu()``, ``t.to("cpu")``, ``int(t)``...)."""
    func = call.func
    if isinstance(func, cst.Attribute):
        if func.attr.value in SYNC_METHODS and not call.args:
            return func.value, f"`.{func.attr.value}()`"
        copy = host_copy(call)
        if copy is not None:
            return func.value, copy
        return None
    if isinstance(func, cst.Name) and func.value in SYNC_BUILTINS:
        args = positional(call)
        if len(call.args) == 1 and args and not _metadata_value(args[0].value):
            return args[0].value, f"`{func.value}()`"
    return None


class _IterationSyncs(LoopBodyVisitor):
    """Explicit host reads in a ``while`` body, not in nested functions, nested loops (they
    are judged as loops of their own) or branches taken once every N iterations."""

    def __init__(self) -> None:
        self.found: list[IterationSync] = []

    def visit_For(self, node: cst.For) -> bool:
        return False

    def visit_While(self, node: cst.While) -> bool:
        return False

    def visit_If(self, node: cst.If) -> bool:
        if self._every_n(node):
            return False
        test = tensor_test(node.test)
        if test is not None:
            self.found.append(IterationSync(test, test, "a tensor as an `if` test"))
        return True

    def visit_Call(self, node: cst.Call) -> None:
        read = explicit_sync(node)
        if read is not None:
            self.found.append(IterationSync(node, read[0], read[1]))


def iteration_syncs(node: cst.While) -> list[IterationSync]:
    """The host reads a ``while`` loop makes on every iteration: of its test (a tensor as the
    truth value, or an explicit read in it) and of its body."""
    finder = _IterationSyncs()
    test = tensor_test(node.test)
    if test is not None:
        finder.found.append(IterationSync(test, test, "a tensor as the `while` test"))
    else:
        visit_read_only(node.test, finder)
    visit_read_only(node.body, finder)
    return finder.found


# -- whether an expression is a tensor -----------------------------------------------------------


def _tensor_type(provenance: Provenance, node: cst.BaseExpression) -> bool:
    qualified = provenance.qualify(node) or ""
    return qualified.startswith("torch.") and qualified.endswith("Tensor")


def tensor_annotation(provenance: Provenance, annotation: cst.BaseExpression) -> bool:
    """Whether an annotation says: a torch tensor (``torch.Tensor``, ``torch.LongTensor``,
    ``Tensor``), optionally or-None (``Optional[...]``, ``... | None``). A container of
    tensors, or a union with anything else, is not one tensor."""
    return annotation_is(provenance, annotation, lambda node: _tensor_type(provenance, node))


def annotated_tensor_parameter(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is a parameter annotated as one tensor, and the parameter's value is
    the one that reaches ``name`` (any other binding of it is a known value, not a parameter)."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    bindings = provenance.bindings(frame)
    if not bindings.is_parameter(name) or bindings.of(name.value).count(None) != 1:
        return False
    annotation = parameter_annotation(name, frame)
    return annotation is not None and tensor_annotation(provenance, annotation)


def annotated_tensor_field(provenance: Provenance, node: cst.Attribute, frame: Frame) -> bool:
    """Whether ``obj.attr`` is a field that ``obj``'s class (of the project) declares as one
    tensor in its body (``seq_lens: torch.Tensor`` of a dataclass of step inputs)."""
    owner = class_of(provenance, node.value, frame)
    if owner is None or owner.provenance is None or owner.node is None:
        return False
    body = owner.node.body
    if not isinstance(body, cst.IndentedBlock):
        return False
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.target.value == node.attr.value
            ):
                source = owner.provenance
                # the fact source of a module is its Provenance (a Protocol for the type only)
                assert isinstance(source, Provenance)
                return tensor_annotation(source, small.annotation.annotation)
    return False


def on_host_by_name(node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether names say the tensor is on the host: the tensor's (``cpu_lengths``) or the
    function's (``fill_indices_cpu``, a CPU reference implementation)."""
    if host_named(node):
        return True
    function = frame.function
    return isinstance(function, cst.FunctionDef) and any(
        word in function.name.value.lower() for word in ("cpu", "host")
    )


def is_tensor(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``node`` is proven to be one tensor (not a list, not a numpy array), wherever it
    is: the analysis knows where it is, or it is a parameter annotated as a tensor."""
    if provenance.fact(node, frame).known:
        return True
    return isinstance(node, cst.Name) and annotated_tensor_parameter(provenance, node, frame)


class _ShapeReads(cst.CSTVisitor):
    """The expressions whose ``.shape`` or ``.size(...)`` an expression reads."""

    def __init__(self) -> None:
        self.bases: list[cst.BaseExpression] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "shape":
            self.bases.append(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "size" and node.args:
            self.bases.append(func.value)


def walks_its_rows(module: cst.Module, tensor: cst.BaseExpression, loop: RowLoop) -> bool:
    """Whether an index loop counts up to ``tensor``'s own length: ``range(t.shape[0])``,
    ``range(t.size(0))``. Then ``t`` is an array (a tensor, or a numpy array in a torch file)
    walked row by row."""
    if loop.walk is not Walk.INDEX:
        return False
    finder = _ShapeReads()
    for bound in loop.bounds:
        visit_read_only(bound, finder)
    code = module.code_for_node(tensor)
    return any(module.code_for_node(base) == code for base in finder.bases)


# -- row reductions: the product or sum of each row ----------------------------------------------


@dataclass(frozen=True)
class RowReduction:
    """A comprehension element that reduces a whole row: ``op`` is ``prod`` or ``sum``;
    ``torch_func`` is the ``torch.prod``/``torch.sum`` node when the element called it (the fix
    then keeps that spelling)."""

    op: str
    torch_func: cst.BaseExpression | None = None
    numpy: bool = False


def _unwrap_int(node: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "int"
        and len(node.args) == 1
        and node.args[0].keyword is None
        and not node.args[0].star
    ):
        return node.args[0].value, True
    return node, False


def _is_name(node: cst.BaseExpression | None, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def tensor_row_reduction(
    provenance: Provenance, elt: cst.BaseExpression, row: str
) -> RowReduction | None:
    """``elt`` reduces the whole tensor row ``row`` to a number: ``torch.prod(r).item()``,
    ``r.sum().item()``, ``int(torch.prod(r))``, ``int(r.prod())``."""
    inner, wrapped = _unwrap_int(elt)
    if (
        isinstance(inner, cst.Call)
        and isinstance(inner.func, cst.Attribute)
        and inner.func.attr.value == "item"
        and not inner.args
    ):
        inner = inner.func.value
    elif not wrapped:
        return None
    if not isinstance(inner, cst.Call) or (inner.args and len(inner.args) != 1):
        return None
    func = inner.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("prod", "sum"):
        if not inner.args and _is_name(func.value, row):
            return RowReduction(func.attr.value)
        qualified = provenance.qualify(func)
        if (
            qualified in ("torch.prod", "torch.sum")
            and len(inner.args) == 1
            and inner.args[0].keyword is None
            and _is_name(inner.args[0].value, row)
        ):
            return RowReduction(func.attr.value, func)
    return None


def list_row_reduction(
    provenance: Provenance, elt: cst.BaseExpression, target: cst.BaseExpression, frame: Frame
) -> RowReduction | None:
    """``elt`` reduces a whole row of a ``.tolist()``: ``math.prod(r)``, ``sum(r)``,
    ``functools.reduce(operator.mul, r)``, or ``t * h * w`` over ``for t, h, w in ...``."""
    inner, _ = _unwrap_int(elt)
    if isinstance(target, cst.Name) and isinstance(inner, cst.Call):
        args = positional(inner)
        if len(inner.args) != len(args):
            return None
        qualified = provenance.qualify(inner.func)
        row = target.value
        if len(args) == 1 and _is_name(args[0].value, row):
            if qualified == "math.prod":
                return RowReduction("prod")
            if qualified in ("numpy.prod", "numpy.sum"):
                return RowReduction(qualified.split(".")[1], numpy=True)
            if _is_name(inner.func, "sum") and not provenance.bindings(frame).of("sum"):
                return RowReduction("sum")
        if (
            len(args) == 2
            and qualified == "functools.reduce"
            and _is_name(args[1].value, row)
            and _is_product(provenance, args[0].value)
        ):
            return RowReduction("prod")
        return None
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value for e in target.elements]
        if len(names) < 2 or not all(isinstance(n, cst.Name) for n in names):
            return None
        wanted = sorted(n.value for n in names if isinstance(n, cst.Name))
        for op, operator in (("prod", cst.Multiply), ("sum", cst.Add)):
            operands = _chain(inner, operator)
            if operands is not None and sorted(operands) == wanted:
                return RowReduction(op)
    return None


def _chain(node: cst.BaseExpression, operator: type[cst.BaseBinaryOp]) -> list[str] | None:
    """The names of ``a * b * c`` (for ``operator`` Multiply), or None when it is not such a
    chain of plain names."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, operator):
        left = _chain(node.left, operator)
        right = _chain(node.right, operator)
        if left is not None and right is not None:
            return left + right
    return None


def _is_product(provenance: Provenance, func: cst.BaseExpression) -> bool:
    """``operator.mul`` or ``lambda a, b: a * b``."""
    if provenance.qualify(func) == "operator.mul":
        return True
    if isinstance(func, cst.Lambda):
        params = [p.name.value for p in func.params.params]
        body = func.body
        return (
            len(params) == 2
            and isinstance(body, cst.BinaryOperation)
            and isinstance(body.operator, cst.Multiply)
            and _chain(body, cst.Multiply) in (params, params[::-1])
        )
    return False


# -- what proves an expression is a tensor (its device unknown) -----------------------------------

# Methods only a torch tensor has (a numpy array, a list or a number has none of them).
TENSOR_ONLY_METHODS = frozenset(
    {
        "int",
        "long",
        "float",
        "half",
        "bfloat16",
        "bool",
        "detach",
        "contiguous",
        "clone",
        "unsqueeze",
        "masked_fill",
        "masked_fill_",
        "cuda",
        "narrow",
        "new_zeros",
        "new_ones",
        "new_full",
        "new_empty",
        "new_tensor",
        "type_as",
        "view_as",
        "expand",
        "expand_as",
        "repeat_interleave",
        "index_select",
        "gather",
        "logical_and",
        "logical_or",
        "logical_not",
        "eq",
        "ne",
        "gt",
        "ge",
        "lt",
        "le",
        "isnan",
        "isinf",
        "isfinite",
        "count_nonzero",
        "pow",
        "exp",
        "log",
        "sqrt",
        "norm",
        "amax",
        "amin",
        "softmax",
        "sigmoid",
    }
)
# Methods of an array (a tensor, or a numpy array) whose result is on the input's device:
# reductions and arithmetic; applied to a value, they prove it is an array, not which kind.
ARRAY_METHODS = frozenset(
    {"sum", "max", "min", "prod", "mean", "any", "all", "argmax", "argmin", "cumsum", "abs"}
    | {"flatten", "squeeze", "reshape", "view", "clamp", "round", "std", "var"}
)
# ``torch.<name>`` functions whose result is one tensor on their inputs' device.
TENSOR_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "cat",
        "concat",
        "concatenate",
        "stack",
        "max",
        "min",
        "sum",
        "mean",
        "prod",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "cumsum",
        "abs",
        "clamp",
        "where",
        "less",
        "greater",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "logical_and",
        "logical_or",
        "logical_not",
        "isin",
        "any",
        "all",
        "count_nonzero",
        "diff",
        "gather",
        "index_select",
        "masked_fill",
        "minimum",
        "maximum",
        "matmul",
        "bmm",
        "einsum",
        "exp",
        "log",
        "sqrt",
        "norm",
        "flatten",
        "squeeze",
        "unsqueeze",
        "softmax",
    )
)
# Names that say an object is a module (whose ``.cpu()`` moves parameters), not a tensor.
MODULE_WORDS = (
    "model",
    "module",
    "net",
    "layer",
    "block",
    "encoder",
    "decoder",
    "embed",
    "unet",
    "vae",
    "transformer",
    "pipe",
    "optimizer",
    "generator",
    "head",
    "tower",
    "engine",
)
_ARRAY_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.GreaterThan)


def tensor_evidence(
    provenance: Provenance,
    node: cst.BaseExpression,
    frame: Frame,
    *,
    read: bool = False,
    depth: int = 0,
) -> cst.BaseExpression | None:
    """When ``node`` is surely a tensor (or, with ``read``, surely an array read with
    ``.item()``/``.tolist()``, which only arrays have) though its device is unknown: the
    expression whose device decides where it is (``step_context.q_seqlens`` for
    ``step_context.q_seqlens.max()``); else None.

    Evidence: a parameter annotated as a tensor; a ``torch.<function>`` result
    (``torch.cat(...)``, ``torch.max(x)``); a method only tensors have (``x.int()``,
    ``x.detach()``); with ``read``, a reduction (``x.sum(dim=1)``) or a comparison
    (``a == b``), which a Python value would not offer ``.item()``/``.tolist()`` on; a name
    bound only to such values. Host facts (numpy, ``.cpu()`` results) are the caller's to
    check: this answers "is it a tensor", not "where"."""
    if depth > 6:
        return None
    if isinstance(node, cst.Name):
        if annotated_tensor_parameter(provenance, node, frame):
            return node
        bindings = provenance.bindings(frame)
        reaching = bindings.reaching_bindings(node)
        if not reaching:
            return None
        for binding in reaching:
            value = binding.value
            if value is None:
                if binding.statement is not bindings.root:
                    return None
                annotation = parameter_annotation(node, frame)
                if annotation is None or not tensor_annotation(provenance, annotation):
                    return None
            elif tensor_evidence(
                provenance, value, frame, read=read, depth=depth + 1
            ) is None or provenance.is_host_data(value, frame):
                return None
        return node
    if isinstance(node, cst.Subscript):
        inner = tensor_evidence(provenance, node.value, frame, depth=depth + 1)
        return inner
    if isinstance(node, cst.Attribute):
        return node if annotated_tensor_field(provenance, node, frame) else None
    if isinstance(node, cst.Comparison):
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        for operand in operands:
            root = tensor_evidence(provenance, operand, frame, depth=depth + 1)
            if root is not None:
                return root
        if read and all(isinstance(c.operator, _ARRAY_COMPARISONS) for c in node.comparisons):
            return _plain(node.left)
        return None
    if isinstance(node, cst.BinaryOperation):
        for side in (node.left, node.right):
            root = tensor_evidence(provenance, side, frame, read=read, depth=depth + 1)
            if root is not None:
                return root
        return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return tensor_evidence(provenance, node.expression, frame, read=read, depth=depth + 1)
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    qualified = provenance.qualify(func) or ""
    if qualified in TENSOR_FUNCTIONS or qualified.startswith("torch.nn.functional."):
        first = positional(node)
        if not first:
            return node
        inner = first[0].value
        if isinstance(inner, (cst.Tuple, cst.List)):
            return node
        found = tensor_evidence(provenance, inner, frame, depth=depth + 1)
        return found if found is not None else _plain(inner) or node
    if qualified or not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    receiver = func.value
    if method in METADATA_METHODS:
        return None  # ``x.numel()``, ``x.size(0)``: Python numbers, whatever ``x`` is
    if method in TENSOR_ONLY_METHODS or method in ARRAY_METHODS:
        found = tensor_evidence(provenance, receiver, frame, read=read, depth=depth + 1)
        if found is not None:
            return found
        if method in TENSOR_ONLY_METHODS or read:
            return _plain(receiver) or receiver
    return None


def _plain(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``node`` when it is a name, an attribute chain or a subscript of one (something the
    message can name), else None."""
    inner = node
    while isinstance(inner, (cst.Attribute, cst.Subscript)):
        inner = inner.value
    return node if isinstance(inner, cst.Name) else None


def module_named(node: cst.BaseExpression) -> bool:
    """Whether the last name of ``node`` says it is a module (``self.model``, ``encoder``)."""
    if isinstance(node, cst.Attribute):
        name = node.attr.value
    elif isinstance(node, cst.Name):
        name = node.value
    else:
        return False
    lowered = name.lower()
    return lowered in ("self", "cls", "m") or any(word in lowered for word in MODULE_WORDS)


# Methods of a model class that build its ``forward``'s keyword arguments once per step (the
# generation loop calls ``model(**model.prepare_inputs_for_generation(...))``).
INPUT_PREPARERS = ("prepare_inputs_for_generation",)


def prepared_on_host(provenance: Provenance, name: cst.Name, frame: Frame, depth: int = 0) -> bool:
    """Whether ``name``, a parameter of ``forward``, is a host tensor by what its callers pass:

    - what the class's input preparer (``prepare_inputs_for_generation``, its own or a base
      class's, also one defined in another module) returns under that keyword, when every
      value it binds there is on the host: ``grid_thw = torch.stack(...).cpu()`` ... ``return
      dict(..., grid_thw=grid_thw)``. A ``None`` default does not count;
    - else, for a module held by another module of the same file (``self.model =
      Inner(...)``), what every call of it there passes (``self.model(x, grid_thw=grid_thw)``):
      a host value, or a ``forward`` parameter of the holder that is a host tensor by the same
      rules (the outer model's input preparer built it on the host). Without such a call
      nothing is known."""
    function, cls = frame.function, frame.cls
    if not isinstance(function, cst.FunctionDef) or cls is None or depth > 3:
        return False
    if function.name.value != "forward" or not provenance.bindings(frame).is_parameter(name):
        return False
    preparer = _input_preparer(provenance, cls)
    if preparer is not None:
        owner, method = preparer
        return _prepares_on_host(owner, method, name.value)
    return _holders_pass_host(provenance, cls, function, name.value, depth)


def _input_preparer(
    provenance: Provenance, cls: cst.ClassDef, depth: int = 0
) -> tuple[Provenance, cst.FunctionDef] | None:
    """The input preparer of ``cls`` or of its nearest base class that has one (with the
    provenance of the module defining it)."""
    if depth > 4:
        return None
    methods = provenance.index.methods.get(cls, {})
    for preparer_name in INPUT_PREPARERS:
        if preparer_name in methods:
            return provenance, methods[preparer_name]
    for base in cls.bases:
        ref = named_class(provenance, base.value)
        if ref is None or ref.provenance is None or ref.node is None or ref.node is cls:
            continue
        assert isinstance(ref.provenance, Provenance)  # the module's fact source
        found = _input_preparer(ref.provenance, ref.node, depth + 1)
        if found is not None:
            return found
    return None


def _prepares_on_host(provenance: Provenance, preparer: cst.FunctionDef, key: str) -> bool:
    values = _returned_keyword(preparer, key)
    if not values:
        return False
    prep_frame = provenance.index.frame_of(preparer)
    bindings = provenance.bindings(prep_frame)
    seen = False
    for value in values:
        candidates: list[cst.BaseExpression | None] = [value]
        if isinstance(value, cst.Name):
            candidates = list(bindings.reaching(value))
        for candidate in candidates:
            if candidate is None:
                return False
            if isinstance(candidate, cst.Name) and candidate.value == "None":
                continue
            if not value_where(provenance, candidate, prep_frame).on_host:
                return False
            seen = True
    return seen


def _holders_pass_host(
    provenance: Provenance, cls: cst.ClassDef, forward: cst.FunctionDef, key: str, depth: int
) -> bool:
    """Whether the modules of this file that hold an instance of ``cls`` all call it with a
    host tensor (or a ``None``) for ``forward``'s parameter ``key``, in at least one call."""
    params = [p.name.value for p in forward.params.params]
    position = params.index(key) - 1 if key in params[1:] else None
    seen = False
    for call, holder_frame in _calls_of_held(provenance, cls):
        value = keyword(call, key)
        argument: cst.BaseExpression | None = value.value if value is not None else None
        if argument is None and position is not None:
            args = positional(call)
            if any(a.star for a in call.args):
                return False
            argument = args[position].value if position < len(args) else None
        if argument is None:
            if any(a.star == "**" for a in call.args):
                return False  # ``**kwargs`` may carry it
            continue  # the default
        if isinstance(argument, cst.Name) and argument.value == "None":
            continue
        if isinstance(argument, cst.Name) and provenance.bindings(holder_frame).is_parameter(
            argument
        ):
            if not prepared_on_host(provenance, argument, holder_frame, depth + 1):
                return False
        elif not value_where(provenance, argument, holder_frame).on_host:
            return False
        seen = True
    return seen


def _calls_of_held(provenance: Provenance, cls: cst.ClassDef) -> list[tuple[cst.Call, Frame]]:
    """The calls ``self.<attr>(...)`` in methods of the file's other classes whose attribute
    ``attr`` holds an instance of ``cls``, each with the frame of the method making it."""
    held = provenance.context.shared("held-modules", lambda: _held_modules(provenance))
    return held.get(cls, [])


def _held_modules(provenance: Provenance) -> dict[cst.ClassDef, list[tuple[cst.Call, Frame]]]:
    index = provenance.index
    found: dict[cst.ClassDef, list[tuple[cst.Call, Frame]]] = {}
    for holder, methods in index.methods.items():
        attrs: dict[str, cst.ClassDef] = {}
        for attr in index.attributes.get(holder, {}):
            ref = provenance.attribute_class(holder, attr)
            if (
                ref is not None
                and ref.provenance is provenance
                and ref.node is not None
                and ref.node is not holder
            ):
                attrs[attr] = ref.node
        if not attrs:
            continue
        for method in methods.values():
            frame = index.frame_of(method)
            self_name = frame.self_name
            if not self_name:
                continue
            for call in _self_attribute_calls(method, self_name, attrs):
                assert isinstance(call.func, cst.Attribute)
                found.setdefault(attrs[call.func.attr.value], []).append((call, frame))
    return found


def _self_attribute_calls(
    method: cst.FunctionDef, self_name: str, attrs: dict[str, cst.ClassDef]
) -> list[cst.Call]:
    calls: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is method

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == self_name
                and func.attr.value in attrs
            ):
                calls.append(node)

    visit_read_only(method, _Calls())
    return calls


def _returned_keyword(function: cst.FunctionDef, key: str) -> list[cst.BaseExpression]:
    """The values ``function`` returns under ``key``: ``return dict(key=v)`` or
    ``return {"key": v}``."""
    values: list[cst.BaseExpression] = []

    class _Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            value = node.value
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
                if value.func.value == "dict":
                    values.extend(
                        a.value for a in value.args if a.keyword and a.keyword.value == key
                    )
            elif isinstance(value, cst.Dict):
                for element in value.elements:
                    if (
                        isinstance(element, cst.DictElement)
                        and isinstance(element.key, cst.SimpleString)
                        and element.key.evaluated_value == key
                    ):
                        values.append(element.value)

    visit_read_only(function, _Returns())
    return values

"""Loops and comprehensions that walk a tensor row by row, and the host reads (syncs) in them
(HTD201). Row reductions are in row_reductions.py, what rows and tests share in sync_basics.py.

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

from collections.abc import Callable, Sequence
from dataclasses import replace

import libcst as cst

from h2dlint.analysis.arguments import positional
from h2dlint.analysis.builtin_walks import compared_values
from h2dlint.analysis.host_rebinds import host_arithmetic
from h2dlint.analysis.names import target_names
from h2dlint.analysis.paired_results import star_zip_loops
from h2dlint.analysis.row_shapes import SIZE_METHODS, host_value, python_bool, row_value, unpacked
from h2dlint.analysis.row_truths import IF_TEST, TruthReads, test_read
from h2dlint.analysis.shape_syncs import SIZE_FACTORIES, data_sized_operand
from h2dlint.analysis.sync_basics import (
    METADATA_ATTRIBUTES,
    METADATA_FUNCTIONS,
    METADATA_METHODS,
    NESTED_SCOPES,
    SYNC_BUILTINS,
    SYNC_METHODS,
    TO_HOST_METHODS,
    LoopBodyVisitor,
    RowLoop,
    RowSync,
    Walk,
    host_copy,
)
from h2dlint.analysis.tensor_pieces import split_source, unbound
from h2dlint.analysis.value_syncs import explicit_sync
from h2dlint.imports import statements
from h2dlint.walk import visit_read_only


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
            if func.value == "reversed" and len(args) == 1 == len(iterable.args):
                return row_loop(args[0].value, target)  # the same rows, last first
            if func.value == "range" and isinstance(target, cst.Name):
                bounds = tuple(a.value for a in args)
                if len(bounds) == 3 and not isinstance(bounds[2], cst.Integer):
                    return None  # range(0, n, chunk): chunks of rows, one read per chunk
                return RowLoop(Walk.INDEX, None, frozenset({target.value}), target, bounds)
            return None
        if isinstance(func, cst.Attribute):
            if func.attr.value == "tolist" and not iterable.args:
                tensor = strip_to_host(func.value)
                names = frozenset(target_names(target))
                stripped = tensor is not func.value
                return RowLoop(Walk.LIST, tensor, names, target, via_tensor_method=stripped)
            cut = unbound(iterable)
            if cut is not None:
                tensor, rows = cut
                names = frozenset(target_names(target))
                return RowLoop(Walk.ROWS, tensor, names, target, pieces=not rows)
            source = split_source(iterable)
            if source is not None:
                names = frozenset(target_names(target))
                return RowLoop(Walk.ROWS, source, names, target, pieces=True)
        return None
    if isinstance(iterable, (cst.Name, cst.Attribute, cst.Subscript)):
        return RowLoop(Walk.ROWS, iterable, frozenset(target_names(target)), target)
    return None


def zipped_loops(iterable: cst.BaseExpression, target: cst.BaseExpression) -> list[RowLoop]:
    """``for a, b in zip(xs, ys)``: how each target name walks its argument (the arguments
    that may be tensors walked row by row), in argument order."""
    if not (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value == "zip"
        and isinstance(target, (cst.Tuple, cst.List))
    ):
        return []
    args = positional(iterable)
    elements = target.elements
    if not args:
        return star_zip_loops(iterable, elements)  # ``zip(*logprobs.topk(k))``
    if len(args) != len(elements) or any(a.star for a in args):
        return []
    loops = []
    for arg, element in zip(args, elements, strict=True):
        if isinstance(element, cst.StarredElement):
            return []
        loop = row_loop(arg.value, element.value)
        if loop is not None and loop.walk is Walk.ROWS:
            loops.append(loop)
    return loops


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

    def __init__(self, loop: RowLoop, objects: bool = False) -> None:
        self.loop = loop
        # Whether an item read only for a field no tensor has is an object, not a row.
        self.objects = objects
        self.stack: list[cst.CSTNode] = []
        self.bases: list[cst.BaseExpression] = []
        self.reads = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        parent = self.stack[-1] if self.stack else None
        if _is_metadata(node, parent):
            return False
        item = isinstance(node, cst.Subscript) or (
            isinstance(node, cst.Name) and node.value in self.loop.names
        )
        grandparent = self.stack[-2] if len(self.stack) > 1 else None
        if self.objects and item and _object_field(node, parent, grandparent):
            return False  # ``hyp.yseq`` of ``for hyp in nbest_hyps``: items are objects
        if self.objects and _keyed_entry(node):
            return False  # ``state["step"]`` of ``state = self.state[p]``: a mapping's entry
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
            if (
                isinstance(node, cst.Subscript)
                and _mentions(node.slice, self.loop.names)
                and (not self.loop.picks or _picked(node, self.loop.names))
            ):
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


# Attributes a tensor has that are no methods: a row read through any other attribute
# (``hyp.yseq``, ``req.output_ids``) is an object's field, not a row of a tensor.
TENSOR_FIELDS = METADATA_ATTRIBUTES | {"T", "mT", "H", "mH", "data", "grad", "real", "imag"}


def _object_field(
    node: cst.CSTNode, parent: cst.CSTNode | None, grandparent: cst.CSTNode | None
) -> bool:
    """Whether ``node`` (a loop's item or ``items[i]``) is read only for a field that no tensor
    has (``hyp.yseq`` where ``parent`` is ``hyp.yseq``; not a method called on it, not
    ``.data``/``.T``): the loop walks objects (beam hypotheses, requests), not rows."""
    if not isinstance(node, (cst.Name, cst.Subscript)) or not isinstance(parent, cst.Attribute):
        return False
    if parent.value is not node or parent.attr.value in TENSOR_FIELDS:
        return False
    return not (isinstance(grandparent, cst.Call) and grandparent.func is parent)


def _keyed_entry(node: cst.CSTNode) -> bool:
    """A subscript by string keys only (``state["step"]``): no tensor is indexed by a string,
    so what it reads is an entry of a mapping (an optimizer's state of a parameter), no row."""
    strings = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
    return (
        isinstance(node, cst.Subscript)
        and bool(node.slice)
        and all(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, strings)
            for e in node.slice
        )
    )


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


def _picked(node: cst.Subscript, names: frozenset[str]) -> bool:
    """Whether an index of ``node`` (not a slice bound) mentions one of ``names``."""
    return any(
        isinstance(element.slice, cst.Index) and _mentions(element.slice, names)
        for element in node.slice
    )


def _mentions(node: cst.CSTNode | Sequence[cst.CSTNode], names: frozenset[str]) -> bool:
    collector = _Names()
    for part in (node,) if isinstance(node, cst.CSTNode) else node:
        visit_read_only(part, collector)
    return bool(collector.names & names)


def reads_row(
    expr: cst.BaseExpression, loop: RowLoop, *, objects: bool = False
) -> list[cst.BaseExpression] | None:
    """The tensors whose row ``expr`` reads (the walked tensor, or the tensors indexed by the
    index), or None when it reads none. ``objects``: an item read only for a field no tensor
    has (``hyp.yseq``) is an object's field, no row (:func:`_object_field`)."""
    finder = _RowReads(loop, objects)
    visit_read_only(expr, finder)
    if not finder.reads:
        return None
    if loop.walk is Walk.INDEX:
        return finder.bases
    return [loop.tensor] if loop.tensor is not None else None


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
    if isinstance(func, cst.Name):
        for operand in compared_values(call):
            if isinstance(operand, cst.Call) and explicit_sync(operand) is not None:
                continue  # ``max(t[i].item(), m)``: the ``.item()`` is the read
            tensors = reads_row(operand, loop)
            if tensors:
                return RowSync(call, tensors[0], f"`{func.value}()` of a row and other values")
    # A walk of the rows themselves only (an index walk picks groups, experts: HTD202's).
    sized = data_sized_operand(call) if loop.walk is Walk.ROWS else None
    if sized is not None and (tensors := reads_row(sized[0], loop)):
        return RowSync(call, tensors[0], sized[1])
    return None


# Row reads through ``__index__`` (a 0-d tensor as a slice bound or a size): a row of Python
# ints is used the same way, so only rows of tensors known to be tensors count.
ROW_SLICE = "a row as a slice bound"
ROW_SIZE = "a row as a size"
ROW_REPEAT = "a row as a repeat count"  # ``[False] * lens[i]``: the list asks for ``__index__``
INDEX_READS = frozenset({ROW_SLICE, ROW_SIZE, ROW_REPEAT})
ROW_WRITE = "a write into a host tensor or array"


class _SyncFinder(TruthReads, LoopBodyVisitor):
    """Row syncs in a loop body. Nested function bodies are not the loop's; a sync that reads a
    nested loop's own rows is that loop's; a branch taken once every N iterations
    (``if step % 100 == 0``) is not per row; nor is an ``assert``. Truth values of rows:
    :mod:`~h2dlint.analysis.row_truths`."""

    def __init__(self, loop: RowLoop) -> None:
        super().__init__()
        self.loop = loop
        self.found: list[RowSync] = []
        self.inner: list[frozenset[str]] = []

    def visit_Assert(self, node: cst.Assert) -> bool:
        # A check (``assert out[i].isfinite().all()``): graph capture, tests and validation
        # read rows this way, and ``python -O`` drops it; HTD202 leaves asserts alone too.
        return False

    def visit_If(self, node: cst.If) -> bool:
        if self._every_n(node):
            return False
        self.truth(test_read(node.test, self.loop, IF_TEST))
        return True

    def truth(self, read: tuple[cst.BaseExpression, str] | None) -> None:
        if read is None or any(sync.call is read[0] for sync in self.found):
            return
        tensors = reads_row(read[0], self.loop)
        if tensors and not self._shadowed(read[0]):
            self.found.append(RowSync(read[0], tensors[0], read[1]))

    def visit_For(self, node: cst.For) -> None:
        self.inner.append(frozenset(target_names(node.target)))

    def leave_For(self, original_node: cst.For) -> None:
        self.inner.pop()

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.inner.append(frozenset(target_names(node.target)))

    def leave_CompFor(self, original_node: cst.CompFor) -> None:
        self.inner.pop()

    def _shadowed(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` reads a nested loop's rows (or a shadowing name): not ours."""
        return bool(self.inner) and _mentions(node, frozenset().union(*self.inner))

    def visit_Call(self, node: cst.Call) -> None:
        sync = sync_of(node, self.loop) or self._size(node)
        if sync is None or self._shadowed(node):
            return
        self.found.append(sync)

    def visit_Assign(self, node: cst.Assign) -> None:
        """``order[i, j] = yhat[k]``: a row written by index into another tensor or array
        (a read where that one is on the host: :mod:`~h2dlint.analysis.row_writes`)."""
        value = node.value
        if len(node.targets) != 1 or not isinstance(value, (cst.Subscript, cst.Name)):
            return
        target = node.targets[0].target
        if isinstance(target, cst.Subscript) and not self._shadowed(value):
            tensors = reads_row(value, self.loop)
            if tensors and not _mentions(target.value, self.loop.names):
                self.found.append(RowSync(value, tensors[0], ROW_WRITE, target.value))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """``ids[:l]`` with ``l`` a row (``for ids, l in zip(pos, lens)``), ``x[s:e]`` with
        rows of offsets: Python asks a 0-d tensor for its ``__index__``, which reads it."""
        for element in node.slice:
            index = element.slice
            if not isinstance(index, cst.Slice):
                continue
            for bound in (index.lower, index.upper):
                if bound is None or not row_value(bound):
                    continue
                tensors = reads_row(bound, self.loop)
                if tensors and not self._shadowed(bound):
                    self.found.append(RowSync(node, tensors[0], ROW_SLICE))
                    return

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        """``[False] * lens[i]``, ``(0,) * (n - l)``: a display repeated a row's number of times."""
        if not isinstance(node.operator, cst.Multiply):
            return
        for seq, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(seq, (cst.List, cst.Tuple, cst.ListComp)) and row_value(count):
                tensors = reads_row(count, self.loop)
                if tensors and not self._shadowed(count):
                    self.found.append(RowSync(node, tensors[0], ROW_REPEAT))
                    return

    def _size(self, call: cst.Call) -> RowSync | None:
        """``torch.arange(l)``, ``torch.zeros(l, d)``, ``range(l)``, ``x.repeat(l, 1)``,
        ``x.new_zeros(l, d)``, ``slice(s[i], e[i])`` (read through ``__index__``) of a row."""
        func = call.func
        every = True  # every positional argument is a size (``range``, ``x.repeat``)
        bounds = isinstance(func, cst.Name) and func.value == "slice"
        if isinstance(func, cst.Name):
            sized = func.value == "range" or bounds
        elif isinstance(func, cst.Attribute) and func.attr.value in SIZE_METHODS:
            sized = not (isinstance(func.value, cst.Name) and func.value.value == "torch")
        else:
            every = False
            sized = (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "torch"
                and f"torch.{func.attr.value}" in SIZE_FACTORIES
            )
        args = positional(call)
        if not sized or not args:
            return None
        for arg in args if every else args[:1]:
            tensors = reads_row(arg.value, self.loop) if row_value(arg.value) else None
            if tensors:
                return RowSync(call, tensors[0], ROW_SLICE if bounds else ROW_SIZE)
        return None


def with_derived(
    body: list[cst.CSTNode],
    loop: RowLoop,
    host: Callable[[cst.BaseExpression], bool] | None = None,
) -> RowLoop:
    """``loop`` knowing the names its body binds to tensors computed from a row: ``r =
    torch.as_tensor(t[i], dtype=torch.long)``, ``g = row.to(torch.int64)``. A name bound to a
    host read of the row (``n = t[i].item()``) holds a Python value, not a row; so does one
    that ``host`` says is host data (``d = np.array([w["end"] for w in row])``: numpy holds no
    device memory), where the caller can tell."""
    derived = dict(loop.derived)
    for node in body:
        for small in statements(node, into_definitions=False):
            if isinstance(small, cst.AnnAssign) and small.value is not None:
                pairs = unpacked(small.target, small.value)  # ``d: torch.Tensor = f(row)``
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                pairs = unpacked(small.targets[0].target, small.value)
            else:
                continue
            for target, value in pairs:
                if target.value in loop.names:
                    continue
                if isinstance(value, cst.Call) and explicit_sync(value) is not None:
                    continue
                tensors = reads_row(value, loop)
                if not tensors or host_value(value) or (host is not None and host(value)):
                    continue
                if host_arithmetic(value, lambda operand: bool(reads_row(operand, loop))):
                    continue  # ``n = lens[i].item() + 2``: a Python number
                if python_bool(value, lambda part: bool(reads_row(part, loop))):
                    continue  # ``new = b[i] is None or b[i].device != d``: a Python bool
                base = tensors[0]
                if isinstance(base, cst.Name) and base.value == target.value:
                    continue  # ``t = t[mask[i]]``: still the row ``t = types[i]`` binds
                derived.setdefault(target.value, base)
    if len(derived) == len(loop.derived):
        return loop
    return replace(loop, derived=tuple(derived.items()))


def row_syncs(body: list[cst.CSTNode], loop: RowLoop) -> list[RowSync]:
    """The row syncs in ``body`` (statements of a ``for``, or the parts of a comprehension)."""
    loop = with_derived(body, loop)
    finder = _SyncFinder(loop)
    for node in body:
        visit_read_only(node, finder)
    return finder.found

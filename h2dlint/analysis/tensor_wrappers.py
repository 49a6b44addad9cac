"""Objects that wrap one tensor and hand out its rows: a class whose ``__init__`` stores a
parameter annotated as a tensor in an attribute (``self.data = data`` of ``data: torch.Tensor |
np.ndarray``), whose ``__getitem__`` returns a slice of it (``self.data[idx]``, or a new
object of the class around one: ``self.__class__(self.data[idx], self.orig_shape)``) and whose
properties return slices of it (``cls``: ``self.data[:, -1]``). Ultralytics' ``BaseTensor`` ->
``Boxes``/``Keypoints``/``OBB`` have this shape, as detection and segmentation code's boxes,
instances and mask holders often do.

Iterating such an object walks the rows of the wrapped tensor, and a row's view property
(``d.cls`` of ``for d in boxes``) is a slice of that row: ``int(d.cls)`` per box reads one
device scalar per box when the wrapped tensor is on a device (session 51, ultralytics PRs
25230, 25842). A class must also move itself between devices (a ``cpu``/``cuda``/``to``
method): the sign that its data is meant to live on an accelerator, unlike a numpy-backed
holder (supervision's ``Detections``), whose rows are host data.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.classes import class_of
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame, ModuleIndex
from h2dlint.analysis.hot_calls import inherited_method
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.sync_basics import RowLoop, Walk
from h2dlint.context import SharedKey
from h2dlint.imports import statements
from h2dlint.walk import visit_read_only

# Methods that move a wrapper between devices: their presence says the data may be on one.
DEVICE_METHODS = frozenset({"cpu", "cuda", "to"})
# Methods whose result holds host data (a wrapper's host copy).
HOST_METHODS = frozenset({"cpu", "numpy", "tolist"})
# Names of tensor types in a parameter's annotation (``torch.Tensor``, ``Tensor``).
_TENSOR_TYPES = frozenset({"Tensor"})
_MAX_BASES = 8


@dataclass(frozen=True)
class Wrapper:
    """A tensor wrapper class: the attribute holding the tensor and the names whose reads on
    an item are slices of it (the view properties, and the attribute itself)."""

    field: str
    views: frozenset[str]
    # Iterating yields the field's own rows (tensors), not objects of the class.
    rows: bool = False


def wrapper_of(source: FactSource, cls: cst.ClassDef) -> Wrapper | None:
    """The :class:`Wrapper` ``cls`` is (its bases looked up in the same module), or None;
    ``source`` analyses the module that defines ``cls`` (computed once per class there)."""
    return source.context.shared(_WRAPPERS, lambda: _wrapper(source.index, cls), cls)


_WRAPPERS: SharedKey[Wrapper | None] = SharedKey("tensor wrapper class")


def wrapped_value(
    provenance: FactSource, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> Wrapper | None:
    """The :class:`Wrapper` ``node`` is an instance of: its class's, or, for a name or a
    conditional expression, the one every value agrees on (``self.obb if is_obb else
    self.boxes``: two wrapper classes of one field are one kind of rows); ``None`` values
    aside."""
    if depth > 4:
        return None
    if isinstance(node, cst.IfExp):
        arms = [a for a in (node.body, node.orelse) if not _is_none(a)]
        found = [wrapped_value(provenance, a, frame, depth + 1) for a in arms]
        return _agree(found)
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in HOST_METHODS
    ):
        return None  # ``boxes.cpu()``: the host copy, whatever class it is made of
    if _host_move(node):
        return None  # ``boxes.to("cpu")``: likewise
    if isinstance(node, cst.Name):
        values = [v for v in provenance.bindings(frame).reaching(node) if not _is_none(v)]
        if values and all(v is not None for v in values):
            found = [wrapped_value(provenance, v, frame, depth + 1) for v in values if v]
            return _agree(found)  # every value a wrapper's, none a host copy
    if isinstance(node, cst.Attribute):
        assigned = _attribute_wrapper(provenance, node, frame, depth)
        if assigned is not None:
            return assigned
    ref = class_of(provenance, node, frame)
    if ref is None or ref.provenance is None or ref.node is None:
        return None
    return wrapper_of(ref.provenance, ref.node)


def _attribute_wrapper(
    provenance: FactSource, node: cst.Attribute, frame: Frame, depth: int
) -> Wrapper | None:
    """``self.boxes`` (``result.boxes``) of a class whose methods assign it only wrappers
    of one field or None (``self.boxes = Boxes(boxes, shape) if boxes is not None else
    None``), each judged in the frame that assigns it."""
    base = node.value
    if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
        source, cls = provenance, frame.cls
    else:
        owner = class_of(provenance, base, frame)
        if owner is None or owner.provenance is None or owner.node is None:
            return None
        source, cls = owner.provenance, owner.node
    assigned = [
        (value, where)
        for value, where in source.index.attributes.get(cls, {}).get(node.attr.value, [])
        if not _is_none(value)
    ]
    if not assigned or any(value is None for value, _ in assigned):
        return None
    return _agree(
        [wrapped_value(source, value, where, depth + 1) for value, where in assigned if value]
    )


def _host_move(node: cst.BaseExpression) -> bool:
    """``x.to("cpu")``, ``x.to(device="cpu")``, ``x.to(torch.device("cpu"))``."""
    if not (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "to"
    ):
        return False
    found = _Strings()
    for arg in node.args:
        visit_read_only(arg.value, found)
    return "cpu" in found.values


class _Strings(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: set[str] = set()

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str):
            self.values.add(value)


def _agree(found: list[Wrapper | None]) -> Wrapper | None:
    if not found or any(w is None for w in found):
        return None
    first = found[0]
    assert first is not None
    if not all(w is not None and w.field == first.field for w in found):
        return None
    # Each arm's views: a read names the one its arm's class has (``row.xyxy`` of Boxes).
    if any(w is not None and w.rows != first.rows for w in found):
        return None
    views = frozenset().union(*(w.views for w in found if w is not None))
    return Wrapper(first.field, views, first.rows)


def _is_none(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _lineage(index: ModuleIndex, cls: cst.ClassDef) -> Iterator[cst.ClassDef]:
    """``cls`` and its bases defined in the same module, nearest first."""
    seen: list[cst.ClassDef] = []
    stack = [cls]
    while stack and len(seen) <= _MAX_BASES:
        current = stack.pop(0)
        if current in seen:
            continue
        seen.append(current)
        yield current
        for base in current.bases:
            if base.keyword is None and isinstance(base.value, cst.Name):
                parent = index.classes.get(base.value.value)
                if parent is not None:
                    stack.append(parent)


def _wrapper(index: ModuleIndex, cls: cst.ClassDef) -> Wrapper | None:
    if not any(inherited_method(index, cls, name) for name in DEVICE_METHODS):
        return None
    getitem = inherited_method(index, cls, "__getitem__")
    iterate = inherited_method(index, cls, "__iter__")
    for field in _tensor_fields(index, cls):
        if iterate is not None:
            # Iterating runs ``__iter__``: its items are the field's own rows
            # (detectron2's ``yield from self.tensor``), or anything.
            if not _iterates(iterate, field):
                continue
            rows = True
        elif getitem is not None and all(
            _slices(value, field, index) for value in _returns(getitem) or [None]
        ):
            rows = False
        else:
            continue
        views = {field}
        for klass in _lineage(index, cls):
            for name, method in index.methods.get(klass, {}).items():
                if _is_property(method) and _view(method, field):
                    views.add(name)
        return Wrapper(field, frozenset(views), rows)
    return None


def _docstring(line: cst.BaseStatement) -> bool:
    return (
        isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and isinstance(line.body[0], cst.Expr)
        and isinstance(line.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _iterates(method: cst.FunctionDef, field: str) -> bool:
    """``__iter__`` whose body is ``yield from self.<field>`` or ``return iter(self.<field>)``."""
    if not isinstance(method.body, cst.IndentedBlock):
        return False
    lines = [line for line in method.body.body if not _docstring(line)]
    if len(lines) != 1 or not isinstance(lines[0], cst.SimpleStatementLine):
        return False
    if len(lines[0].body) != 1:
        return False
    stmt = lines[0].body[0]
    value = stmt.value if isinstance(stmt, (cst.Expr, cst.Return)) else None
    if isinstance(value, cst.Yield) and isinstance(value.value, cst.From):
        return _self_field(value.value.item, field)
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "iter"
        and len(value.args) == 1
        and _self_field(value.args[0].value, field)
    )


def _tensor_fields(index: ModuleIndex, cls: cst.ClassDef) -> list[str]:
    """The attributes the ``__init__`` of ``cls`` or of a base stores a parameter annotated as
    a tensor in (``self.data = data`` of ``data: torch.Tensor | np.ndarray``)."""
    fields: list[str] = []
    for klass in _lineage(index, cls):
        init = index.methods.get(klass, {}).get("__init__")
        if init is None:
            continue
        tensors = {
            p.name.value
            for p in init.params.params
            if p.annotation is not None and _names_tensor(p.annotation.annotation)
        }
        for stmt in _simple_statements(init):
            if not isinstance(stmt, cst.Assign) or len(stmt.targets) != 1:
                continue
            target = stmt.targets[0].target
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and isinstance(stmt.value, cst.Name)
                and stmt.value.value in tensors
                and target.attr.value not in fields
            ):
                fields.append(target.attr.value)
    return fields


def _names_tensor(annotation: cst.BaseExpression) -> bool:
    found = _Names()
    visit_read_only(annotation, found)
    return bool(found.names & _TENSOR_TYPES)


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str):
            self.names.update(part.strip().rsplit(".", 1)[-1] for part in value.split("|"))


def _simple_statements(function: cst.FunctionDef) -> Iterator[cst.BaseSmallStatement]:
    """The small statements of ``function``'s own body (not of nested blocks)."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock):
        return
    for stmt in body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body


class _Returns(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: list[cst.BaseExpression | None] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.values.append(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _returns(function: cst.FunctionDef) -> list[cst.BaseExpression | None]:
    found = _Returns()
    visit_read_only(function.body, found)
    return found.values


def _self_field(node: cst.BaseExpression, field: str) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == field
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    )


def _field_slice(node: cst.BaseExpression, field: str) -> bool:
    """``self.<field>[...]``."""
    return isinstance(node, cst.Subscript) and _self_field(node.value, field)


def _slices(value: cst.BaseExpression | None, field: str, index: ModuleIndex) -> bool:
    """Whether a return of ``__getitem__`` is a slice of the field, or an object of the
    class (or of a class of the module) made around one (first argument)."""
    if value is None:
        return False
    if _field_slice(value, field):
        return True
    if not isinstance(value, cst.Call) or not value.args:
        return False
    func = value.func
    made = (
        (isinstance(func, cst.Attribute) and func.attr.value == "__class__")
        or (
            isinstance(func, cst.Call)
            and isinstance(func.func, cst.Name)
            and func.func.value == "type"
        )
        or (isinstance(func, cst.Name) and func.value in index.classes)
    )
    return made and _field_slice(value.args[0].value, field)


def _is_property(method: cst.FunctionDef) -> bool:
    return any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "property"
        for d in method.decorators
    )


def _view(method: cst.FunctionDef, field: str) -> bool:
    """A property whose every return is a slice of the field (or, in one arm, None:
    ``self.data[:, -3] if self.is_track else None``)."""
    returns = _returns(method)
    if not returns:
        return False
    for value in returns:
        arms = [value.body, value.orelse] if isinstance(value, cst.IfExp) else [value]
        kept = [a for a in arms if a is not None and not _is_none(a)]
        if not kept or not all(_field_slice(a, field) for a in kept):
            return False
    return True


def row_wrapper(
    provenance: FactSource, loop: RowLoop, tensor: cst.BaseExpression, frame: Frame
) -> Wrapper | None:
    """The :class:`Wrapper` whose rows ``loop`` reads through ``tensor`` (``for d in boxes``,
    ``for i, row in enumerate(data)`` of ``data = self.obb if is_obb else self.boxes``; an
    index loop's ``self.keypoints[i]``), or None."""
    if loop.pieces or loop.items or loop.walk is Walk.LIST:
        return None
    return wrapped_value(provenance, tensor, frame)


def reads_view(
    node: cst.BaseExpression, loop: RowLoop, wrapper: Wrapper, parts: list[cst.CSTNode]
) -> bool:
    """Whether ``node`` reads a view of a row of the wrapper (``d.cls``, ``row.data`` of a
    walked row, ``kpt.data`` of ``kpt = self.keypoints[i]``, ``boxes[i].conf``), or a name
    the loop's body (``parts``) binds to a value computed from one (``kpt =
    torch.cat((kpts[j].xy, kpts[j].conf[..., None]), 2)``): a slice of the wrapped tensor's
    row, not a field of an object."""
    names = loop.names if loop.walk is Walk.ROWS else frozenset()
    names |= {name for name, _ in loop.derived}
    indices = loop.names if loop.walk is Walk.INDEX else frozenset()
    found = _ViewReads(names, indices, wrapper.views)
    visit_read_only(node, found)
    if found.found:
        return True
    if wrapper.rows and loop.walk is Walk.ROWS:
        used = _Used()
        visit_read_only(node, used)
        if used.names & loop.names:
            return True  # ``box.tolist()`` of ``for box in boxes``: the item is a row
    viewed = _viewed_names(parts, loop, wrapper, names, indices)
    if not viewed:
        return False
    used = _Used()
    visit_read_only(node, used)
    return bool(used.names & viewed)


def _viewed_names(
    parts: list[cst.CSTNode],
    loop: RowLoop,
    wrapper: Wrapper,
    names: frozenset[str],
    indices: frozenset[str],
) -> frozenset[str]:
    """The derived names of ``loop`` that ``parts`` bind only to values reading a view."""
    derived = {name for name, _ in loop.derived}
    values: dict[str, list[cst.BaseExpression]] = {}
    for part in parts:
        for small in statements(part, into_definitions=False):
            if not isinstance(small, cst.Assign):
                continue
            for target in small.targets:
                if isinstance(target.target, cst.Name) and target.target.value in derived:
                    values.setdefault(target.target.value, []).append(small.value)
    viewed = set()
    for name, bound in values.items():
        finders = [_ViewReads(names, indices, wrapper.views) for _ in bound]
        for value, finder in zip(bound, finders, strict=True):
            visit_read_only(value, finder)
        if all(finder.found for finder in finders):
            viewed.add(name)
    return frozenset(viewed)


class _ViewReads(cst.CSTVisitor):
    def __init__(
        self, names: frozenset[str], indices: frozenset[str], views: frozenset[str]
    ) -> None:
        self.names = names
        self.indices = indices
        self.views = views
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value not in self.views:
            return
        value = node.value
        if isinstance(value, cst.Name):
            self.found = self.found or value.value in self.names
        elif isinstance(value, cst.Subscript) and self.indices:
            used = _Used()
            visit_read_only(value.slice[0], used) if value.slice else None
            self.found = self.found or bool(used.names & self.indices)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class _Used(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def built_on(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> Where:
    """Where the tensor held by the wrapper object ``node`` lives, by the objects made here
    that reach it (``boxes = Boxes(pred[:, :6], shape)``: ``pred``'s placement; a numpy
    array's is the host); unknown unless every construction agrees."""
    if not isinstance(node, cst.Name):
        return Where.UNKNOWN
    found: set[Where] = set()
    for value in provenance.bindings(frame).reaching(node):
        if not (isinstance(value, cst.Call) and value.args and value.args[0].keyword is None):
            return Where.UNKNOWN
        ref = class_of(provenance, value, frame)
        if ref is None or ref.provenance is None or ref.node is None:
            return Where.UNKNOWN
        if wrapper_of(ref.provenance, ref.node) is None:
            return Where.UNKNOWN
        data = value.args[0].value
        if provenance.is_numpy_array(data, frame):
            found.add(Where.HOST)
            continue
        where = provenance.where(data, frame)
        found.add(Where.HOST if where.on_host else where)
    return found.pop() if len(found) == 1 else Where.UNKNOWN

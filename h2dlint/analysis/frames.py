"""Frames: a function (or the module) together with the class it is a method of, and the
module-wide index of functions, classes and the attributes methods assign on ``self``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from h2dlint.analysis.bindings import Bindings, pairwise
from h2dlint.analysis.returned_displays import own_method_call, returned_displays
from h2dlint.imports import dotted_name, statements


@dataclass(frozen=True)
class Frame:
    """Where an expression is evaluated: its function (or module) and, for a method, its class
    and the name its instance goes by (``self``)."""

    function: cst.FunctionDef | cst.Module
    cls: cst.ClassDef | None = None
    self_name: str | None = None

    def __post_init__(self) -> None:
        # A frame is a key of every memo of the provenance analysis: its hash (the generated
        # one's value, which hashes two libcst nodes through Python calls) is computed once.
        object.__setattr__(self, "_hash", hash((self.function, self.cls, self.self_name)))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined, no-any-return]


def _parameter(function: cst.FunctionDef, name: str) -> cst.Param | None:
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return param
    return None


def parameter_annotation(name: cst.Name, frame: Frame) -> cst.BaseExpression | None:
    """The annotation of the parameter of ``frame``'s function named like ``name``."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return None
    param = _parameter(function, name.value)
    if param is None or param.annotation is None:
        return None
    return param.annotation.annotation


def unrebound_parameter_annotation(
    bindings: Bindings, name: cst.Name, frame: Frame
) -> cst.BaseExpression | None:
    """The annotation of the parameter ``name`` when the parameter is all that ever reaches
    ``name`` (nothing rebinds it on the way; ``bindings``: the frame's); else None."""
    reaching = bindings.reaching_bindings(name)
    if not reaching or any(
        b.value is not None or b.statement is not bindings.root for b in reaching
    ):
        return None
    return parameter_annotation(name, frame)


def parameter_default(name: cst.Name, frame: Frame) -> cst.BaseExpression | None:
    """The default of the parameter of ``frame``'s function named like ``name``."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return None
    param = _parameter(function, name.value)
    return param.default if param is not None else None


def decorator_names(func: cst.FunctionDef) -> set[str]:
    """The last parts of the names ``func`` is decorated with (``functools.cache()`` -> cache)."""
    names = set()
    for decorator in func.decorators:
        name = (
            dotted_name(decorator.decorator)
            if not isinstance(decorator.decorator, cst.Call)
            else dotted_name(decorator.decorator.func)
        )
        if name:
            names.add(name.rsplit(".", 1)[-1])
    return names


def frame_at(
    ancestors: Sequence[cst.CSTNode],
    i: int,
    known: dict[tuple[cst.CSTNode, cst.CSTNode | None], Frame] | None = None,
) -> Frame:
    """The frame of the function ``ancestors[i]`` (outermost first): a method's when the
    node two up (past the class body) is a class. ``known``: the frames made so far, by
    function and that node (a file's visits ask for the same few thousands of times)."""
    function = ancestors[i]
    assert isinstance(function, cst.FunctionDef)
    owner = ancestors[i - 2] if i >= 2 else None
    if known is None:
        return method_frame(function, owner if isinstance(owner, cst.ClassDef) else None)
    found = known.get((function, owner))
    if found is None:
        found = known[function, owner] = frame_at(ancestors, i)
    return found


def method_frame(func: cst.FunctionDef, cls: cst.ClassDef | None) -> Frame:
    if cls is None:
        return Frame(func)
    decorators = decorator_names(func)
    params = [*func.params.posonly_params, *func.params.params]
    if "staticmethod" in decorators or "classmethod" in decorators or not params:
        return Frame(func, cls, None)
    return Frame(func, cls, params[0].name.value)


def _body(node: cst.ClassDef | cst.Module) -> list[cst.CSTNode]:
    if isinstance(node, cst.Module):
        return list(node.body)
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else []


Assignments = dict[str, list[tuple[cst.BaseExpression | None, Frame]]]


class ClassAttributes:
    """class -> attribute -> [(value or None when unknown, frame it is evaluated in)], computed
    for a class the first time one of its attributes is asked about."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._by_class: dict[cst.ClassDef, tuple[Assignments, dict[str, int]]] = {}

    def get(self, klass: cst.ClassDef, default: Assignments | None = None) -> Assignments:
        return self._collected(klass)[0]

    def in_place(self, klass: cst.ClassDef, attr: str) -> int:
        """How many of the unknown (None) values of ``attr`` in :meth:`get` are augmented
        assignments (``self.ptr += 1``), which update the value in place when it is a tensor,
        a list or an array."""
        return self._collected(klass)[1].get(attr, 0)

    def _collected(self, klass: cst.ClassDef) -> tuple[Assignments, dict[str, int]]:
        if klass not in self._by_class:
            self._by_class[klass] = _collect_attributes(klass, self.module)
        return self._by_class[klass]


def _collect_attributes(
    klass: cst.ClassDef, module: cst.Module
) -> tuple[Assignments, dict[str, int]]:
    attributes: Assignments = {}
    in_place: dict[str, int] = {}
    class_frame = Frame(module, klass, None)
    methods = {s.name.value: s for s in _body(klass) if isinstance(s, cst.FunctionDef)}
    for stmt in _body(klass):
        if isinstance(stmt, cst.FunctionDef):
            frame = method_frame(stmt, klass)
            if frame.self_name:
                unpacked = list(_unpacked_returns(stmt, frame.self_name, methods))
                resolved = frozenset(assign for assign, _, _, _ in unpacked)
                for attr, value, augmented in _self_assignments(stmt, frame.self_name, resolved):
                    attributes.setdefault(attr, []).append((value, frame))
                    if augmented:
                        in_place[attr] = in_place.get(attr, 0) + 1
                for _, attr, value, callee in unpacked:
                    attributes.setdefault(attr, []).append((value, method_frame(callee, klass)))
        elif isinstance(stmt, cst.SimpleStatementLine):
            for name, value in _class_level_assignments(stmt):
                attributes.setdefault(name, []).append((value, class_frame))
    return attributes, in_place


@dataclass
class ModuleIndex:
    """Top-level functions and classes of a module, each class's methods, and (on demand) the
    values its methods assign to ``self.<attr>``."""

    module: cst.Module
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    classes: dict[str, cst.ClassDef] = field(default_factory=dict)
    methods: dict[cst.ClassDef, dict[str, cst.FunctionDef]] = field(default_factory=dict)
    owner: dict[cst.FunctionDef, cst.ClassDef] = field(default_factory=dict)
    attributes: ClassAttributes = field(init=False)

    def __post_init__(self) -> None:
        self.attributes = ClassAttributes(self.module)

    @classmethod
    def build(cls, module: cst.Module) -> ModuleIndex:
        index = cls(module)
        for stmt in _compound_statements(module):
            if isinstance(stmt, cst.FunctionDef):
                index.functions.setdefault(stmt.name.value, stmt)
            elif isinstance(stmt, cst.ClassDef):
                index.classes.setdefault(stmt.name.value, stmt)
                methods: dict[str, cst.FunctionDef] = {}
                for member in _body(stmt):
                    if isinstance(member, cst.FunctionDef):
                        methods.setdefault(member.name.value, member)
                        index.owner[member] = stmt
                index.methods[stmt] = methods
        return index

    def frame_of(self, func: cst.FunctionDef) -> Frame:
        return method_frame(func, self.owner.get(func))


def _class_level_assignments(
    line: cst.SimpleStatementLine,
) -> Iterator[tuple[str, cst.BaseExpression]]:
    """``name = value`` and ``name: T = value`` in a class body."""
    for small in line.body:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                if isinstance(target.target, cst.Name):
                    yield target.target.value, small.value
        elif (
            isinstance(small, cst.AnnAssign)
            and isinstance(small.target, cst.Name)
            and small.value is not None
        ):
            yield small.target.value, small.value


def _compound_statements(module: cst.Module) -> Iterator[cst.BaseCompoundStatement]:
    """Top-level defs and classes, also those under module-level ``if``/``try``."""
    stack: list[cst.CSTNode] = list(module.body)
    while stack:
        node = stack.pop(0)
        # By exact class (none of these has subclasses): a failed ``isinstance`` of a libcst
        # class calls ``ABCMeta.__instancecheck__`` (see walk.node_classes).
        if type(node) is cst.FunctionDef or type(node) is cst.ClassDef:
            yield node
        elif type(node) is cst.If or type(node) is cst.Try or type(node) is cst.With:
            body = node.body
            if type(body) is cst.IndentedBlock:
                stack.extend(body.body)
            orelse = getattr(node, "orelse", None)
            if (type(orelse) is cst.Else or type(orelse) is cst.If) and type(
                orelse.body
            ) is cst.IndentedBlock:
                stack.extend(orelse.body.body)


def _self_assignments(
    method: cst.FunctionDef, self_name: str, resolved: frozenset[cst.Assign] = frozenset()
) -> Iterator[tuple[str, cst.BaseExpression | None, bool]]:
    """``self.<attr> = value`` (and ``+=``, unpacking) anywhere in a method's statements, each
    with whether it is an augmented assignment (its value None). Only statements are walked,
    never expressions, which keeps this cheap on large classes. The unpackings in ``resolved``
    (of an own method's returned displays) give their values elsewhere: the attributes they
    bind are left out here, not recorded as unknown."""
    for small in statements(method.body):
        # By exact class (none has subclasses): see _compound_statements.
        if type(small) is cst.Assign and small in resolved:
            unpacked = small.targets[0].target
            elements = unpacked.elements if isinstance(unpacked, (cst.Tuple, cst.List)) else ()
            direct = {e.value.attr.value for e in elements if isinstance(e.value, cst.Attribute)}
            for attr, value in _targets(unpacked, small.value, self_name):
                if attr not in direct:
                    yield attr, value, False
        elif type(small) is cst.Assign:
            for target in small.targets:
                for attr, value in _targets(target.target, small.value, self_name):
                    yield attr, value, False
        elif type(small) is cst.AnnAssign and small.value is not None:
            for attr, value in _targets(small.target, small.value, self_name):
                yield attr, value, False
        elif type(small) is cst.AugAssign:
            for attr, _ in _targets(small.target, None, self_name):
                yield attr, None, True


def _unpacked_returns(
    method: cst.FunctionDef, self_name: str, methods: dict[str, cst.FunctionDef]
) -> Iterator[tuple[cst.Assign, str, cst.BaseExpression, cst.FunctionDef]]:
    """``self.a, self.b = self._pick(x)`` where every return of ``_pick`` (a method of the same
    class) is a display of two values: each return's element at ``a``'s position is one more
    value of ``a``, evaluated in ``_pick``'s frame (:mod:`returned_displays`). The unpacking
    itself is recorded as unknown by :func:`_self_assignments`; these are its values."""
    for small in statements(method.body):
        if type(small) is not cst.Assign or len(small.targets) != 1:  # see _self_assignments
            continue
        target = small.targets[0].target
        if type(target) is not cst.Tuple and type(target) is not cst.List:
            continue
        callee = own_method_call(small.value, self_name, methods)
        if callee is None or callee is method:
            continue
        if any(not isinstance(e, cst.Element) for e in target.elements):
            continue  # a starred target
        displays = returned_displays(callee, len(target.elements))
        for position, element in enumerate(target.elements):
            name = element.value
            if not (
                isinstance(name, cst.Attribute)
                and isinstance(name.value, cst.Name)
                and name.value.value == self_name
            ):
                continue
            for display in displays:
                yield small, name.attr.value, display[position], callee


def _targets(
    target: cst.BaseExpression, value: cst.BaseExpression | None, self_name: str
) -> Iterator[tuple[str, cst.BaseExpression | None]]:
    # By exact class (none has subclasses): see _compound_statements.
    if (
        type(target) is cst.Attribute
        and type(target.value) is cst.Name
        and target.value.value == self_name
    ):
        yield target.attr.value, value
    elif type(target) is cst.Tuple or type(target) is cst.List:
        values = pairwise(target, value)
        for element, element_value in zip(target.elements, values, strict=True):
            yield from _targets(element.value, element_value, self_name)
    elif type(target) is cst.StarredElement:
        yield from _targets(target.value, None, self_name)

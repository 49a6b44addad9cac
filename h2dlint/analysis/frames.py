"""Frames: a function (or the module) together with the class it is a method of, and the
module-wide index of functions, classes and the attributes methods assign on ``self``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from h2dlint.analysis.bindings import pairwise
from h2dlint.analysis.imports import dotted_name


@dataclass(frozen=True)
class Frame:
    """Where an expression is evaluated: its function (or module) and, for a method, its class
    and the name its instance goes by (``self``)."""

    function: cst.FunctionDef | cst.Module
    cls: cst.ClassDef | None = None
    self_name: str | None = None


def _decorator_names(func: cst.FunctionDef) -> set[str]:
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


def method_frame(func: cst.FunctionDef, cls: cst.ClassDef | None) -> Frame:
    if cls is None:
        return Frame(func)
    decorators = _decorator_names(func)
    params = [*func.params.posonly_params, *func.params.params]
    if "staticmethod" in decorators or "classmethod" in decorators or not params:
        return Frame(func, cls, None)
    return Frame(func, cls, params[0].name.value)


def _body(node: cst.ClassDef | cst.Module) -> list[cst.CSTNode]:
    body = node.body
    return (
        list(body.body)
        if isinstance(node, cst.Module) or isinstance(body, cst.IndentedBlock)
        else []
    )


@dataclass
class ModuleIndex:
    """Top-level functions and classes of a module, and each class's methods and the values
    its methods assign to ``self.<attr>``."""

    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    classes: dict[str, cst.ClassDef] = field(default_factory=dict)
    methods: dict[cst.ClassDef, dict[str, cst.FunctionDef]] = field(default_factory=dict)
    owner: dict[cst.FunctionDef, cst.ClassDef] = field(default_factory=dict)
    # class -> attribute -> [(value or None when unknown, frame it is evaluated in)]
    attributes: dict[cst.ClassDef, dict[str, list[tuple[cst.BaseExpression | None, Frame]]]] = (
        field(default_factory=dict)
    )

    @classmethod
    def build(cls, module: cst.Module) -> ModuleIndex:
        index = cls()
        for stmt in _compound_statements(module):
            if isinstance(stmt, cst.FunctionDef):
                index.functions.setdefault(stmt.name.value, stmt)
            elif isinstance(stmt, cst.ClassDef):
                index.classes.setdefault(stmt.name.value, stmt)
                index._add_class(stmt, module)
        return index

    def _add_class(self, klass: cst.ClassDef, module: cst.Module) -> None:
        methods: dict[str, cst.FunctionDef] = {}
        attributes: dict[str, list[tuple[cst.BaseExpression | None, Frame]]] = {}
        class_frame = Frame(module, klass, None)
        for stmt in _body(klass):
            if isinstance(stmt, cst.FunctionDef):
                methods.setdefault(stmt.name.value, stmt)
                self.owner[stmt] = klass
                frame = method_frame(stmt, klass)
                if frame.self_name:
                    collector = _SelfAssignments(frame.self_name)
                    stmt.body.visit(collector)
                    for attr, value in collector.found:
                        attributes.setdefault(attr, []).append((value, frame))
            elif isinstance(stmt, cst.SimpleStatementLine):
                for name, value in _class_level_assignments(stmt):
                    attributes.setdefault(name, []).append((value, class_frame))
        self.methods[klass] = methods
        self.attributes[klass] = attributes

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
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            yield node
        elif isinstance(node, (cst.If, cst.Try, cst.With)):
            body = node.body
            if isinstance(body, cst.IndentedBlock):
                stack.extend(body.body)
            orelse = getattr(node, "orelse", None)
            if isinstance(orelse, (cst.Else, cst.If)) and isinstance(
                orelse.body, cst.IndentedBlock
            ):
                stack.extend(orelse.body.body)


class _SelfAssignments(cst.CSTVisitor):
    """``self.<attr> = value`` in one method (not in nested functions or classes)."""

    def __init__(self, self_name: str) -> None:
        self.self_name = self_name
        self.found: list[tuple[str, cst.BaseExpression | None]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _attr(self, target: cst.BaseExpression) -> str | None:
        if (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == self.self_name
        ):
            return target.attr.value
        return None

    def _targets(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        attr = self._attr(target)
        if attr is not None:
            self.found.append((attr, value))
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            values = pairwise(target, value)
            for element, element_value in zip(target.elements, values, strict=True):
                self._targets(element.value, element_value)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value, None)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._targets(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._targets(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target, None)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target, None)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._targets(node.asname.name, None)

"""The annotated item type of a container: which class ``self.requests[req_id]`` or the
``req`` of ``for req in self.requests.values()`` is an instance of, when the container is
annotated (``self.requests: dict[str, Request] = {}``, ``reqs: list[Request]``).

Serving engines keep their per-request state in such containers (request states, multimodal
inputs, sampling metadata) and read it one request at a time; the state's class, often
defined in another module, says which of its attributes are host copies (``self.grid =
grid_thw.cpu()``). These questions only find the annotation of the item; the class it names
is for :mod:`h2dlint.analysis.classes` to resolve.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame, parameter_annotation

# Annotations whose last subscript element is the item's type, and those whose first is.
MAPPINGS = frozenset(
    {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "DefaultDict"}
)
SEQUENCES = frozenset(
    {"list", "List", "Sequence", "MutableSequence", "deque", "Deque", "Iterable", "Iterator"}
)


def _head(annotation: cst.BaseExpression) -> str | None:
    if isinstance(annotation, cst.Name):
        return annotation.value
    if isinstance(annotation, cst.Attribute):
        return annotation.attr.value
    return None


def item_annotation(
    annotation: cst.BaseExpression | None, values: bool
) -> cst.BaseExpression | None:
    """The item type of a container annotation: a mapping's value type (``values`` or
    subscripting), a sequence's element type, ``tuple[X, ...]``'s ``X``; None otherwise."""
    if isinstance(annotation, cst.SimpleString):
        return None
    if not isinstance(annotation, cst.Subscript):
        return None
    head = _head(annotation.value)
    elements = [e.slice for e in annotation.slice]
    if not all(isinstance(e, cst.Index) for e in elements):
        return None
    types = [e.value for e in elements if isinstance(e, cst.Index)]
    if head in MAPPINGS and len(types) == 2:
        return types[1]
    if values:
        return None  # ``.values()`` of a sequence: no such method
    if head in SEQUENCES and len(types) == 1:
        return types[0]
    if head in ("tuple", "Tuple") and len(types) == 2 and isinstance(types[1], cst.Ellipsis):
        return types[0]
    return None


def _annotated_target(
    statement: cst.CSTNode, self_name: str, attr: str
) -> cst.BaseExpression | None:
    if (
        isinstance(statement, cst.AnnAssign)
        and isinstance(statement.target, cst.Attribute)
        and isinstance(statement.target.value, cst.Name)
        and statement.target.value.value == self_name
        and statement.target.attr.value == attr
    ):
        return statement.annotation.annotation
    return None


def field_annotation(cls: cst.ClassDef, attr: str) -> cst.BaseExpression | None:
    """The annotation of ``attr: ...`` in the body of ``cls``, or None."""
    body = cls.body
    if not isinstance(body, cst.IndentedBlock):
        return None
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.target.value == attr
            ):
                return small.annotation.annotation
    return None


def attribute_annotation(
    cls: cst.ClassDef, methods: dict[str, cst.FunctionDef], attr: str
) -> cst.BaseExpression | None:
    """``attr: T`` in the class body, or ``self.attr: T = ...`` at the top level of a method's
    body (``__init__`` first)."""
    found = field_annotation(cls, attr)
    if found is not None:
        return found
    ordered = sorted(methods.values(), key=lambda f: f.name.value != "__init__")
    for method in ordered:
        params = method.params.params
        if not params or not isinstance(method.body, cst.IndentedBlock):
            continue
        self_name = params[0].name.value
        for statement in method.body.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    found = _annotated_target(small, self_name, attr)
                    if found is not None:
                        return found
    return None


def local_annotation(name: cst.Name, frame: Frame) -> cst.BaseExpression | None:
    """The annotation of a parameter of ``frame``'s function, or of ``name: T = ...`` at the
    top level of its body."""
    found = parameter_annotation(name, frame)
    if found is not None:
        return found
    function = frame.function
    if not isinstance(function, cst.FunctionDef) or not isinstance(
        function.body, cst.IndentedBlock
    ):
        return None
    for statement in function.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if (
                    isinstance(small, cst.AnnAssign)
                    and isinstance(small.target, cst.Name)
                    and small.target.value == name.value
                ):
                    return small.annotation.annotation
    return None


def indexed_container(node: cst.Subscript) -> cst.BaseExpression | None:
    """``xs`` of ``xs[key]`` with one index that is no slice."""
    if len(node.slice) != 1:
        return None
    element = node.slice[0].slice
    if not isinstance(element, cst.Index) or element.star is not None:
        return None
    return node.value


def iterated_container(iterable: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """The container a ``for`` walks item by item and whether it walks a mapping's values:
    ``xs`` (False), ``xs.values()`` (True); None for ``.items()``, ``enumerate`` and the like."""
    if (
        isinstance(iterable, cst.Call)
        and not iterable.args
        and isinstance(iterable.func, cst.Attribute)
        and iterable.func.attr.value == "values"
    ):
        return iterable.func.value, True
    if isinstance(iterable, (cst.Name, cst.Attribute)):
        return iterable, False
    return None


__all__ = [
    "attribute_annotation",
    "indexed_container",
    "item_annotation",
    "iterated_container",
    "local_annotation",
]

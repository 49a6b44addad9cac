"""What an annotation says of a name that a ``for`` loop binds from an annotated parameter.

A sampler's per-request loop unpacks a parameter's items (``for row, (min_toks, stop_ids) in
min_tokens.items()`` of ``min_tokens: dict[int, tuple[int, list[int]]]``): the parameter's
annotation says what each target holds (``stop_ids``: ``list[int]``). The iterable may be the
parameter itself (a ``list[T]``, ``Sequence[T]``, ``tuple[T, ...]``, ``set[T]``; a mapping's
keys), its ``.items()``, ``.values()`` or ``.keys()``, or ``enumerate`` of one of those; the
target may unpack tuples (``tuple[A, B]``) to any depth. Anything else, a parameter that the
function rebinds, or a name the function binds otherwise too, says nothing.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import zip_iterables
from h2dlint.analysis.bindings import Bindings
from h2dlint.analysis.frames import Frame, unrebound_parameter_annotation

# An element's type: an annotation, or the pair a mapping's ``items()`` gives.
Element = cst.BaseExpression | tuple["Element", ...]

_SEQUENCES = frozenset(
    {"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection", "set", "Set"}
)
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"})
_INT = cst.Name("int")


def loop_target_annotation(
    bindings: Bindings, name: cst.Name, frame: Frame
) -> cst.BaseExpression | None:
    """The annotation of ``name`` where its one reaching binding is a ``for`` loop's target over
    an annotated parameter of ``frame``'s function (see the module's docstring); else None."""
    reaching = bindings.reaching_bindings(name)
    if len(reaching) != 1 or not isinstance(reaching[0].statement, cst.For):
        return None
    loop = reaching[0].statement
    element = _iterated(loop.iter, bindings, frame)
    found = _matched(loop.target, element, name.value) if element is not None else None
    return found if isinstance(found, cst.BaseExpression) else None


def _iterated(node: cst.BaseExpression, bindings: Bindings, frame: Frame) -> Element | None:
    """The type of the items of iterating ``node``."""
    if isinstance(node, cst.Name):
        annotation = unrebound_parameter_annotation(bindings, node, frame)
        if annotation is None:
            return None
        parts = _parts(annotation)
        if parts is None:
            return None
        kind, args = parts
        if kind in _SEQUENCES and len(args) == 1:
            return args[0]
        if kind in ("tuple", "Tuple") and len(args) == 2 and isinstance(args[1], cst.Ellipsis):
            return args[0]
        return args[0] if kind in _MAPPINGS and len(args) == 2 else None
    zipped = zip_iterables(node)
    if zipped:
        items = [_iterated(value, bindings, frame) for value in zipped]
        return tuple(i for i in items if i is not None) if None not in items else None
    if not isinstance(node, cst.Call) or any(a.keyword or a.star for a in node.args):
        return None
    func = node.func
    if isinstance(func, cst.Name) and func.value == "enumerate" and len(node.args) == 1:
        inner = _iterated(node.args[0].value, bindings, frame)
        return (_INT, inner) if inner is not None else None
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)) or node.args:
        return None
    annotation = unrebound_parameter_annotation(bindings, func.value, frame)
    parts = _parts(annotation) if annotation is not None else None
    if parts is None or parts[0] not in _MAPPINGS or len(parts[1]) != 2:
        return None
    key, value = parts[1]
    method = func.attr.value
    if method == "items":
        return (key, value)
    return {"keys": key, "values": value}.get(method)


def _matched(target: cst.BaseExpression, element: Element, name: str) -> Element | None:
    """The type of ``name`` in ``target`` bound to an item of type ``element``."""
    if isinstance(target, cst.Name):
        return element if target.value == name else None
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    if isinstance(element, cst.BaseExpression):
        parts = _parts(element)
        if parts is None or parts[0] not in ("tuple", "Tuple"):
            return None
        element = tuple(parts[1])
    targets = target.elements
    if len(targets) != len(element) or any(isinstance(t, cst.StarredElement) for t in targets):
        return None
    for part, item in zip(targets, element, strict=True):
        if isinstance(item, cst.Ellipsis):
            return None
        found = _matched(part.value, item, name)
        if found is not None:
            return found
    return None


def _parts(annotation: cst.BaseExpression) -> tuple[str, list[cst.BaseExpression]] | None:
    """``dict[int, list[int]]`` -> ``("dict", [int, list[int]])``; ``typing.List[int]`` ->
    ``("List", [int])``; None for anything but a subscripted name."""
    if not isinstance(annotation, cst.Subscript):
        return None
    base = annotation.value
    while isinstance(base, cst.Attribute):
        base = cst.Name(base.attr.value)
    if not isinstance(base, cst.Name):
        return None
    args = []
    for element in annotation.slice:
        if not isinstance(element.slice, cst.Index):
            return None
        args.append(element.slice.value)
    return base.value, args


def python_int(bindings: Bindings, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether an annotation says ``node`` is a Python ``int``: a parameter annotated ``int``
    (that nothing rebinds), a loop target so annotated (:func:`loop_target_annotation`: ``for
    src, dst in zip(src_blocks, dst_blocks)`` of ``list[int]`` parameters), or an element of a
    parameter annotated as a list or sequence of ints (``src_blocks[0]``)."""
    if isinstance(node, cst.Name):
        annotation = unrebound_parameter_annotation(
            bindings, node, frame
        ) or loop_target_annotation(bindings, node, frame)
        return isinstance(annotation, cst.Name) and annotation.value == "int"
    if not (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
    ):
        return False
    annotation = unrebound_parameter_annotation(bindings, node.value, frame)
    parts = _parts(annotation) if annotation is not None else None
    if parts is None or parts[0] not in _SEQUENCES | {"tuple", "Tuple"}:
        return False
    args = parts[1]
    if parts[0] in ("tuple", "Tuple") and not (
        len(args) == 2 and isinstance(args[1], cst.Ellipsis)
    ):
        return False
    return isinstance(args[0], cst.Name) and args[0].value == "int"

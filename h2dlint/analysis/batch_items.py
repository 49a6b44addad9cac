"""Items that a class's field annotation names as whole batches (HTD101, at MEDIUM only).

A batch container often keeps one batch object per modality or sensor and moves them one by
one in its own ``to`` (neuracore 19.0.0's ``BatchedTrainingSamples``, session 51)::

    inputs: dict[DataType, list[BatchedNCData]]

    def to(self, device):
        return BatchedTrainingSamples(
            inputs={key: [item.to(device) for item in value] for key, value in self.inputs.items()},
            ...

Each item is an object of a class named for batches, whose own ``to`` moves its tensors: a
whole batch of one sensor, as an item of a collection named as batches is
(:mod:`whole_units`). One move per batch is the floor, and batches of different sensors differ
in shape: nothing to stack. The annotation is read where the loop's iterable comes from a field
of the enclosing class: ``self.items`` itself, or a name a loop or comprehension binds from
``self.field.items()``, ``self.field.values()`` or ``self.field``. A class not named for batches
(``list[Sample]``, ``list[torch.Tensor]``) says nothing: per-sample objects are items to batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.bindings import COMPREHENSIONS
from h2dlint.analysis.container_items import MAPPINGS, field_annotation, item_annotation
from h2dlint.analysis.names import target_names
from h2dlint.analysis.targets import name_words

# Words of a class's name that say its objects are whole batches (``BatchedNCData``, ``Batch``).
BATCH_CLASS_WORDS = frozenset({"batch", "batched"})


def batch_class_items(iterable: cst.BaseExpression, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the items of ``iterable``, in a method of the class that ``ancestors`` (outermost
    first) end in, are annotated as objects of a class named for batches (see the module's
    docstring)."""
    cls = next((a for a in reversed(ancestors) if isinstance(a, cst.ClassDef)), None)
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    if cls is None or function is None or not function.params.params:
        return False
    self_name = function.params.params[0].name.value
    container = _container_annotation(iterable, ancestors, cls, self_name)
    if container is None or _mapping(container):
        return False  # unknown, or a mapping, whose iteration gives its keys
    return _batch_class(item_annotation(container, values=False))


def _container_annotation(
    iterable: cst.BaseExpression,
    ancestors: Sequence[cst.CSTNode],
    cls: cst.ClassDef,
    self_name: str,
) -> cst.BaseExpression | None:
    """The annotation of what ``iterable`` holds: a field's own (``self.items``), or an item
    of a field for a name a loop or comprehension binds from it."""
    field = _self_field(iterable, self_name)
    if field is not None:
        return field_annotation(cls, field)
    if not isinstance(iterable, cst.Name):
        return None
    for node in reversed(ancestors):
        loops: list[cst.For | cst.CompFor] = []
        if isinstance(node, COMPREHENSIONS):
            comp: cst.CompFor | None = node.for_in
            while comp is not None:
                loops.append(comp)
                comp = comp.inner_for_in
        elif isinstance(node, cst.For):
            loops.append(node)
        for loop in loops:
            if iterable.value in target_names(loop.target):
                return _bound_item(loop.target, loop.iter, iterable.value, cls, self_name)
        if isinstance(node, cst.FunctionDef):
            break
    return None


def _bound_item(
    target: cst.BaseExpression,
    source: cst.BaseExpression,
    name: str,
    cls: cst.ClassDef,
    self_name: str,
) -> cst.BaseExpression | None:
    """The annotation of ``name`` bound by ``for target in source``, where ``source`` is a
    field of ``self`` or its ``items()``/``values()``."""
    method = None
    if isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute) and not source.args:
        method = source.func.attr.value
        source = source.func.value
    field = _self_field(source, self_name)
    if field is None:
        return None
    annotation = field_annotation(cls, field)
    if annotation is None:
        return None
    if method == "items":
        if not (
            isinstance(target, cst.Tuple)
            and len(target.elements) == 2
            and isinstance(target.elements[1].value, cst.Name)
            and target.elements[1].value.value == name
        ):
            return None  # only the value of a ``key, value`` pair
        return item_annotation(annotation, values=True)
    if not isinstance(target, cst.Name):
        return None
    if method == "values":
        return item_annotation(annotation, values=True)
    if method is None and not _mapping(annotation):
        return item_annotation(annotation, values=False)
    return None


def _self_field(node: cst.BaseExpression, self_name: str) -> str | None:
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == self_name
    ):
        return node.attr.value
    return None


def _mapping(annotation: cst.BaseExpression) -> bool:
    if not isinstance(annotation, cst.Subscript):
        return False
    head = annotation.value
    name = head.attr.value if isinstance(head, cst.Attribute) else getattr(head, "value", "")
    return name in MAPPINGS


def _batch_class(annotation: cst.BaseExpression | None) -> bool:
    """A class (by name, or a quoted forward reference) whose name says a batch."""
    if isinstance(annotation, cst.SimpleString):
        name = annotation.evaluated_value
    elif isinstance(annotation, cst.Attribute):
        name = annotation.attr.value
    elif isinstance(annotation, cst.Name):
        name = annotation.value
    else:
        return False
    return isinstance(name, str) and bool(BATCH_CLASS_WORDS & name_words(name))

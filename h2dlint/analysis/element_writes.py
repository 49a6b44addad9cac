"""Writes of a Python number into a tensor through an index that copy the number from the host.

Measured on an H200 (torch 2.11, ``benchmarks/device/write_syncs.py``,
``docs/results/h200-write-syncs.json``), behind a 40 ms kernel on a CUDA tensor:

- a Python number written into **one element** (``x[5] = 0.0`` of a 1-D tensor,
  ``rows[3, 7] = 0.0``, ``ids[3, 7] = 5``) or through an **advanced index** (``x[idx] = 0.0``
  with ``idx`` a tensor of indices on either side, ``logits[:, idx] = -inf``,
  ``x[[1, 2, 3]] = 0.0``) held the host 40 ms: PyTorch makes the number a CPU tensor and copies
  it, blocking;
- into several elements through basic indexing (``rows[3] = 0.0``, ``rows[3, :100] = 0.0``,
  ``rows[:, 7] = 0.0``, ``x[2:10] = 0.0``, ``rows[..., 7] = 0.0``) it is a fill (0.02 ms), and
  through a boolean mask a ``masked_fill`` (0.18 ms);
- a device tensor of values (``x[idx] = vals``, ``x[5] = zero_d_on_device``), ``index_fill_``,
  ``index_put_`` of device values, ``scatter_``, ``fill_`` did not sync.

So a write syncs when the number goes into exactly one element (as many integer indices as the
tensor has dimensions: the number of dimensions must be known from where the tensor was made) or
through a list or a tensor of indices.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import libcst as cst

from h2dlint.analysis.arguments import keyword, positional
from h2dlint.analysis.classes import class_of
from h2dlint.analysis.cross_module import field_annotation
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.factories import numeric_constant
from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.analysis.host_data import host_scalar, number_sequence_annotation
from h2dlint.analysis.loop_annotations import loop_target_annotation
from h2dlint.analysis.provenance import Provenance

MAX_DEPTH = 6
ONE_ELEMENT = "one element"
INDEX_TENSOR = "index"

SHAPED_BY_ARGS = frozenset(
    {"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn"}
)
"""Factories whose size is their positional arguments (``torch.zeros(n)``, ``(a, b)``,
``torch.zeros((a, b))``)."""
SIZED_METHODS = frozenset({"new_zeros", "new_ones", "new_empty"})
KEEP_SHAPE = frozenset({"to", "cuda", "pin_memory", "contiguous", "clone", "detach", "long", "int"})
INDEX_PRODUCERS = frozenset({"nonzero", "argmax", "argmin", "argsort", "multinomial"})
"""Methods and ``torch`` functions whose result is a tensor of integer indices (``nonzero`` and
``argsort`` over a dimension; ``argmax`` with ``dim``)."""


def syncing_write(
    provenance: Provenance,
    target: cst.Subscript,
    value: cst.BaseExpression,
    frame: Frame,
) -> str | None:
    """How ``target = value`` copies a Python number from the host, blocking, when the
    subscripted tensor is on a CUDA device: :data:`ONE_ELEMENT`, :data:`INDEX_TENSOR` (through a
    list or tensor of indices), or None when it does not (a fill, a mask, values that are not a
    Python number, a number of dimensions that is not known)."""
    if not host_scalar(provenance, value, frame):  # literals too (True, -1, float("inf"))
        return None
    indices: list[cst.BaseExpression] = []
    basic_slice = False
    for element in target.slice:
        index = element.slice
        if not isinstance(index, cst.Index):
            basic_slice = True
            continue
        if isinstance(index.value, cst.Ellipsis) or (
            isinstance(index.value, cst.Name) and index.value.value == "None"
        ):
            basic_slice = True
            continue
        indices.append(index.value)
    if any(index_tensor(provenance, index, frame) for index in indices):
        return INDEX_TENSOR
    if basic_slice or not indices:
        return None
    if not all(host_scalar(provenance, index, frame) for index in indices):
        return None
    ndim = known_ndim(provenance, target.value, frame)
    return ONE_ELEMENT if ndim == len(indices) else None


def index_tensor(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``node`` is surely a list or tensor of integer indices: a list literal of
    numbers, ``torch.arange``, ``torch.tensor([...])`` of numbers, ``nonzero()``, ``argsort()``,
    ``argmax(dim)``, ``topk(...).indices``, ``.long()`` of one of those, or a local name bound
    only to such values."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(node, (cst.List, cst.ListComp)):
        if isinstance(node, cst.List):
            return bool(node.elements) and all(
                not isinstance(e, cst.StarredElement) and host_scalar(provenance, e.value, frame)
                for e in node.elements
            )
        return True
    if isinstance(node, cst.Attribute):
        return node.attr.value == "indices" or _int_list_field(provenance, node, frame)
    if isinstance(node, cst.Call):
        func = node.func
        qualified = provenance.qualify(func) or ""
        if qualified == "torch.arange":
            return True
        if qualified in ("torch.tensor", "torch.as_tensor"):
            data = positional(node)
            return bool(data) and index_tensor(provenance, data[0].value, frame, depth + 1)
        if qualified.startswith("torch.") and qualified[6:] in INDEX_PRODUCERS:
            return qualified[6:] != "argmax" or keyword(node, "dim") is not None
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in INDEX_PRODUCERS:
                return method not in ("argmax", "argmin") or bool(node.args)
            if method in ("long", "to", "cuda", "int"):
                return index_tensor(provenance, func.value, frame, depth + 1)
        return False
    if isinstance(node, cst.Name):
        bindings = provenance.bindings(frame)
        if bindings.is_parameter(node) and bindings.of(node.value).count(None) == 1:
            annotation = parameter_annotation(node, frame)
            return annotation is not None and int_list_annotation(provenance, annotation)
        # ``for row, (n, stop_ids) in min_tokens.items()`` of ``dict[int, tuple[int, list[int]]]``
        looped = loop_target_annotation(bindings, node, frame)
        if looped is not None:
            return int_list_annotation(provenance, looped)
        reaching = bindings.reaching_bindings(node)
        return bool(reaching) and all(
            b.value is not None and index_tensor(provenance, b.value, frame, depth + 1)
            for b in reaching
        )
    return False


def int_list_annotation(provenance: FactSource, annotation: cst.BaseExpression) -> bool:
    """Whether an annotation says a list (or sequence) of ints, optionally or-None
    (``list[int]``, ``Optional[List[int]]``, ``Sequence[int] | None``)."""
    return number_sequence_annotation(provenance, annotation, frozenset({"int"}), nested=False)


def _int_list_field(provenance: Provenance, node: cst.Attribute, frame: Frame) -> bool:
    """``req.sampling.allowed_token_ids`` that the class of ``req.sampling`` (of the project)
    declares ``list[int] | None``: a list of indices."""
    owner = class_of(provenance, node.value, frame)
    if owner is None or owner.provenance is None or owner.node is None:
        return False
    annotation = field_annotation(owner.node, node.attr.value)
    return annotation is not None and int_list_annotation(owner.provenance, annotation)


def known_ndim(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> int | None:
    """The number of dimensions of the tensor ``node``, when where it was made says it: a
    factory with literal sizes (``torch.zeros(n, device=d)``, ``torch.full((a, b), v)``,
    ``x.new_zeros((a, b))``), ``torch.arange``, ``torch.tensor`` of a nested list literal, a
    name or ``self`` attribute bound only to such tensors; None otherwise."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, cst.Name):
        reaching = provenance.bindings(frame).reaching_bindings(node)
        values = [b.value for b in reaching]
        if not values or any(v is None for v in values):
            return None
        return _same(known_ndim(provenance, v, frame, depth + 1) for v in values if v is not None)
    if isinstance(node, cst.Attribute):
        found = provenance.attribute_values(node, frame, depth)
        if not found:
            return None
        return _same(
            known_ndim(owner, value, value_frame, depth + 1)
            if isinstance(owner, Provenance)
            else None
            for owner, value, value_frame in found
        )
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in KEEP_SHAPE:
        return known_ndim(provenance, func.value, frame, depth + 1)
    qualified = provenance.qualify(func) or ""
    args = positional(node)
    if qualified == "torch.arange":
        return 1
    if qualified in SHAPED_BY_ARGS or (
        isinstance(func, cst.Attribute) and func.attr.value in SIZED_METHODS and not qualified
    ):
        return _sizes_ndim(provenance, [a.value for a in args], frame)
    if qualified == "torch.full" and args:
        return _sizes_ndim(provenance, [args[0].value], frame)
    if qualified == "torch.tensor" and args:
        return _list_depth(args[0].value)
    return None


def _sizes_ndim(
    provenance: Provenance, sizes: list[cst.BaseExpression], frame: Frame
) -> int | None:
    """The number of dimensions of a size given as ``n, m`` or ``(n, m)`` / ``[n, m]``. Two
    sizes or more are ints (a factory takes a shape only alone); one alone is an int when it
    is a number or named as a count (``max_num_reqs``, ``self.max_batch_size``): a name such
    as ``shape`` may hold a tuple."""
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        elements = sizes[0].elements
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        return len(elements) or None
    if not sizes or any(isinstance(s, (cst.Tuple, cst.List)) for s in sizes):
        return None
    if len(sizes) == 1 and not (host_scalar(provenance, sizes[0], frame) or _count_named(sizes[0])):
        return None
    return len(sizes)


COUNT_NAME = re.compile(
    r"(n|num|n_\w+|num_\w+|max_\w+|\w+_(num|len|length|count|tokens|reqs|requests|seqs|"
    r"batch_size|slots|blocks))",
    re.IGNORECASE,
)
"""Names of a count: one size, not a shape."""


def _count_named(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Attribute):
        node = node.attr
    if not isinstance(node, cst.Name):
        return False
    name = node.value.lstrip("_")
    return bool(COUNT_NAME.fullmatch(name)) and not any(
        word in name.lower() for word in ("shape", "dims", "sizes")
    )


def _list_depth(node: cst.BaseExpression) -> int | None:
    if isinstance(node, (cst.List, cst.Tuple)):
        if not node.elements:
            return 1
        first = node.elements[0]
        if isinstance(first, cst.StarredElement):
            return None
        inner = _list_depth(first.value)
        return None if inner is None else inner + 1
    if numeric_constant(node):
        return 0
    return None


def _same(values: Iterable[int | None]) -> int | None:
    """The one value all of ``values`` have; None when they differ or one is None."""
    found = set(values)
    if len(found) != 1:
        return None
    return found.pop()

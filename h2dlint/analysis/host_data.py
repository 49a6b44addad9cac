"""Python data on the host: sequences and arrays whose length is unknown (what a tensor built
from them copies), and the code that runs on the host by design (data preprocessing). Shared by
the rules that judge tensors built from host data (HTD106, HTD301)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.bindings import COMPREHENSIONS, Binding, iterated_by
from h2dlint.analysis.class_bases import module_subclass, written_bases
from h2dlint.analysis.collation import COLLATION_WORDS
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.factories import numeric
from h2dlint.analysis.frames import Frame, parameter_annotation, unrebound_parameter_annotation
from h2dlint.analysis.int_names import range_bound, range_target, shape_unpacked
from h2dlint.analysis.list_parameters import bare_list_annotation
from h2dlint.analysis.provenance import MAX_DEPTH, Provenance, annotation_is
from h2dlint.analysis.returns import returned_values
from h2dlint.analysis.step_outputs import simulator_mapping_value
from h2dlint.imports import dotted_name

if TYPE_CHECKING:
    from h2dlint.context import FileContext

# numpy calls that return a scalar, not an array.
NUMPY_SCALARS = frozenset(
    f"numpy.{name}"
    for name in (
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool_",
        "longlong",
        "single",
        "double",
        "prod",
        "sum",
        "mean",
        "max",
        "min",
        "argmax",
        "argmin",
        "dot",
        "isscalar",
        "count_nonzero",
    )
)
# Data preprocessing: modules (Hugging Face naming) and classes that run on the host by default.
PREPROCESSING_MODULES = (
    "image_processing_",
    "video_processing_",
    "feature_extraction_",
    "processing_",
    "tokenization_",
    "tokenizer",  # ``tokenizer.py``, ``tokenizer_utils.py``: text to ids and back, on the host
)
PREPROCESSING_CLASSES = (
    "ImageProcessor",
    "ImageProcessorFast",
    "VideoProcessor",
    "VideoProcessorFast",
    "FeatureExtractor",
    "Tokenizer",
    "TokenizerFast",
)
# Classes of data preparation whose calls run in the data pipeline, on the host, not per model
# step: processors and tokenizers above, and data transforms (torchvision's and torchtune's
# ``Transform``s; not ``Transformer``).
# ``Collator``: a data collator's ``__call__`` builds batches in the data loader, on the host
# (session 19: diffusers' ``OmniGenCollator`` pads host masks).
HOST_PIPELINE_CLASSES = (*PREPROCESSING_CLASSES, "Transform", "Transforms", "Collator")
# ``DataCollatorForSeq2Seq``, ``MultiModalDataCollatorForSeq2Seq``: a collator named for its task;
# ``TextAudioCollate``, ``TextAudioSpeakerCollate``: the VITS family's collate functions (a class,
# sometimes an ``nn.Module``, whose ``__call__``/``forward`` pads host samples into a batch).
COLLATOR = re.compile(r"Collator(?![a-z])|Collate$")


def host_pipeline_class(name: str, bases: Sequence[str] = ()) -> bool:
    """Whether a class named ``name`` prepares data on the host (its ``__call__``, ``decode``
    are no per-step entry points): named for it, or derived from a class named for it and from
    no torch module (``class SqueezeDim(Transform)``, ``class AddMetaPaths(BaseTransform)``,
    ``class SetLabelClassd(MapTransform)``: the data transforms of MONAI and PyTorch Geometric
    are named for what they do; ``class Warp(Transform, nn.Module)`` is a layer). ``bases`` are
    the class's bases as written (``monai.transforms.Transform``)."""
    if name.endswith(HOST_PIPELINE_CLASSES) or COLLATOR.search(name):
        return True
    last = [base.rpartition(".")[2] for base in bases]
    return any(b.endswith(HOST_PIPELINE_CLASSES) or COLLATOR.search(b) for b in last) and not any(
        b.endswith("Module") for b in last
    )


def host_pipeline_classdef(cls: cst.ClassDef) -> bool:
    """:func:`host_pipeline_class` of a class definition."""
    return host_pipeline_class(cls.name.value, written_bases(cls))


# Builtins returning a Python list, tuple or range of unknown length (``torch.tensor(range(n),
# device=...)`` copies host data as ``list(range(n))`` does; session 19, sentence-transformers).
SEQUENCE_BUILTINS = frozenset({"list", "tuple", "sorted", "range"})


def in_host_pipeline_class(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the innermost class around the node is a data transform or collator by its
    name or bases (:func:`host_pipeline_classdef`: PyTorch Geometric's ``class
    Delaunay(BaseTransform)``): its methods run on a sample in the data pipeline."""
    cls = next((n for n in reversed(ancestors) if isinstance(n, cst.ClassDef)), None)
    if cls is None:
        return False
    if module_subclass(cls):
        return False  # ``class HilbertTransform(nn.Module)``: a layer named for what it does
    return host_pipeline_classdef(cls)


def host_side(context: FileContext) -> bool:
    """Data preprocessing (processors, feature extractors, tokenizers, dataset annotations):
    it runs on the host unless the user asks for a device."""
    for node in reversed(context.ancestors):
        if isinstance(node, cst.FunctionDef) and node.name.value.startswith("post_process"):
            return False  # post-processing works on the model's outputs
    name = context.file_name
    if name.startswith(PREPROCESSING_MODULES):
        return True
    for node in reversed(context.ancestors):
        if isinstance(node, cst.ClassDef):
            return node.name.value.endswith(PREPROCESSING_CLASSES)
        if isinstance(node, cst.FunctionDef) and "annotation" in node.name.value:
            return True
    return False


def dataset_module(context: FileContext) -> bool:
    """A module named for a dataset (``sam2_datasets.py``, ``tts_dataset.py``): samples are
    proven is host data. So is a module named for collation (``data_collate.py``,
    ``collate_fns.py``, ``collator.py``): it builds batches in the loader, as a ``Collator``
    class does (:data:`HOST_PIPELINE_CLASSES`)."""
    stem = context.file_name.removesuffix(".py")
    return bool(DATASET_WORDS & {w.lower() for w in stem.split("_")})


DATASET_WORDS = frozenset({"dataset", "datasets"}) | COLLATION_WORDS


def host_sequence(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``node`` is provably a Python sequence or numpy array of unknown length (not a
    scalar, not a short display of scalars, never a tensor)."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(node, cst.ListComp):
        return True
    if isinstance(node, (cst.List, cst.Tuple)):
        return any(
            isinstance(e, cst.StarredElement)
            or host_sequence(provenance, e.value, frame, depth + 1)
            for e in node.elements
        )
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Multiply):
            # ``[v] * n`` (but ``[[]] * n`` holds nothing)
            return any(
                isinstance(side, (cst.List, cst.Tuple)) and not _holds_nothing(side)
                for side in (node.left, node.right)
            )
        if isinstance(node.operator, cst.Add):
            return host_sequence(provenance, node.left, frame, depth + 1) or host_sequence(
                provenance, node.right, frame, depth + 1
            )
        return False
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("tolist", "numpy"):
            return not node.args
        qualified = provenance.qualify(func)
        if qualified is not None and qualified.startswith("numpy."):
            return qualified not in NUMPY_SCALARS
        if isinstance(func, cst.Name) and func.value in SEQUENCE_BUILTINS:
            return not provenance.bindings(frame).of(func.value)
        return _returns_sequence(provenance, node, frame)
    if isinstance(node, cst.Subscript):
        # A slice of a sequence or array is one; an element may be a scalar.
        if any(isinstance(element.slice, cst.Slice) for element in node.slice):
            return host_sequence(provenance, node.value, frame, depth + 1)
        return False
    if isinstance(node, cst.Name):
        # Every value that may reach the name is one; a parameter, when annotated as a numpy
        # array or a sequence of numbers (``token_ids: list[list[int]]``).
        def bound_to_one(value: cst.BaseExpression, frame: Frame, depth: int) -> bool:
            # ``ids = []`` grown by ``append``/``extend``: a list of unknown length
            empty_list = isinstance(value, cst.List) and not value.elements
            return empty_list or host_sequence(provenance, value, frame, depth)

        if provenance.bound_only_to(node, frame, depth, bound_to_one):
            return True
        if simulator_mapping_value(provenance, node, frame):
            return True  # ``v`` of ``for k, v in info["final_obs"][i].items()`` after a step
        annotation = unrebound_parameter_annotation(provenance.bindings(frame), node, frame)
        return annotation is not None and (
            number_sequence_annotation(provenance, annotation)
            or bare_list_annotation(provenance, annotation)  # ``block_ids: list``
        )
    return False


def _returns_sequence(provenance: Provenance, call: cst.Call, frame: Frame) -> bool:
    """A helper of the project annotated to return a list of numbers or a numpy array
    (``def cu_seqlens(lengths: list[int]) -> list[int]``), in this module or another; not one
    whose every ``return`` is a display of at most 8 items (``return [self.bos_id, eos]``: a
    few numbers, left alone as such a display written in place is)."""
    found = provenance.callee(call, frame)
    returns = found[1].returns if found is not None else None
    if found is None or returns is None:
        return False
    owner, annotation = found[0], returns.annotation
    if not (
        number_sequence_annotation(owner, annotation)
        or annotation_is(owner, annotation, owner.numpy_array_type)
    ):
        return False
    values = returned_values(found[1])
    return not values or not all(
        isinstance(v, (cst.List, cst.Tuple))
        and len(v.elements) <= 8
        and not any(isinstance(e, cst.StarredElement) for e in v.elements)
        for v in values
    )


# Element types of a sequence of numbers, at the bottom of ``list[list[int]]``.
_NUMBER_TYPES = frozenset({"int", "float", "bool"})


def number_sequence_annotation(
    provenance: FactSource,
    annotation: cst.BaseExpression,
    numbers: frozenset[str] = _NUMBER_TYPES,
    nested: bool = True,
) -> bool:
    """Whether ``annotation`` says a list of ``numbers`` (type names), nested or not (unless
    ``nested`` is False: ``list[int]`` only), optionally or-None:
    ``list[int]``, ``Sequence[list[float]]``, ``Optional[List[int]]``. Such a value is on the
    host whatever is passed: ``torch.tensor`` of a tensor warns, so code that annotates a list
    does not hand it one. Not a tuple, even ``tuple[int, ...]``: tuples hold shapes and
    settings, a few scalars (``torch.tensor((width, capacity))`` cannot block); nor a
    sequence of tensors or of anything unnamed. The inner levels of ``list[tuple[int, ...]]``
    may be tuples: it is the outer list that makes the length."""

    def sequence(node: cst.BaseExpression, depth: int) -> bool:
        if depth > 3 or not isinstance(node, cst.Subscript) or not node.slice:
            return False
        head = (provenance.qualify(node.value) or dotted_name(node.value) or "").rsplit(".")[-1]
        items = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
        if head not in _SEQUENCE_TYPES or len(items) != len(node.slice):
            return False
        if head in ("tuple", "Tuple"):
            if depth == 0:
                return False  # a shape or a few settings
            items = items[:1] if len(items) == 2 and isinstance(items[1], cst.Ellipsis) else items
            return all(element(item, depth + 1) for item in items)
        return len(items) == 1 and element(items[0], depth + 1)

    def element(node: cst.BaseExpression, depth: int) -> bool:
        if isinstance(node, cst.Name) and node.value in numbers:
            return True
        return nested and sequence(node, depth)

    return annotation_is(provenance, annotation, lambda node: sequence(node, 0))


# Annotations of a sequence (``list[...]``, ``Sequence[...]``, ``tuple[...]``).
_SEQUENCE_TYPES = frozenset({"list", "List", "Sequence", "tuple", "Tuple", "MutableSequence"})


def sequence_row_item(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is the item of a ``for`` loop (also the item of ``enumerate``) over a
    parameter annotated as a sequence of Python sequences (``rows: list[list[int]]``): each
    item is a Python list, which PyTorch turns into a host tensor wherever it goes."""
    bindings = provenance.bindings(frame)
    reaching = bindings.reaching_bindings(name)
    for binding in reaching:
        iterable = (
            iterated_by(binding.statement, name.value) or _clause_iterable(binding, name.value)
            if binding.value is None
            else None
        )
        if not (isinstance(iterable, cst.Name) and bindings.is_parameter(iterable)):
            return False
        inner = _sequence_item(parameter_annotation(iterable, frame))
        if inner is None or _sequence_item(inner) is None:
            return False
        if "Tensor" in cst.Module([]).code_for_node(inner):
            return False
    return bool(reaching)


def _clause_iterable(binding: Binding, name: str) -> cst.BaseExpression | None:
    """``xs`` of a comprehension's ``for name in xs`` that binds ``name`` (``binding``'s)."""
    statement = binding.statement
    if not isinstance(statement, COMPREHENSIONS):
        return None
    clause: cst.CompFor | None = statement.for_in
    while clause is not None:
        if isinstance(clause.target, cst.Name) and clause.target.value == name:
            return clause.iter
        clause = clause.inner_for_in
    return None


def _sequence_item(annotation: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """``X`` of ``list[X]``, ``Sequence[X]``, ``tuple[X, ...]``; None for anything else."""
    if not isinstance(annotation, cst.Subscript):
        return None
    head = annotation.value
    last = head.attr.value if isinstance(head, cst.Attribute) else getattr(head, "value", "")
    if last not in _SEQUENCE_TYPES or not annotation.slice:
        return None
    first = annotation.slice[0].slice
    return first.value if isinstance(first, cst.Index) else None


def _holds_nothing(node: cst.List | cst.Tuple) -> bool:
    return all(
        isinstance(e.value, (cst.List, cst.Tuple)) and _holds_nothing(e.value)
        for e in node.elements
    )


# Builtins and ``math`` functions that return a Python number, whatever they are given (a
# device tensor given to ``float``/``int`` syncs there, but the result is on the host).
SCALAR_BUILTINS = frozenset({"float", "int", "len", "bool", "round"})
# Tensor methods and attributes that return Python numbers (sizes, not data).
SIZE_METHODS = frozenset({"numel", "dim", "element_size", "nelement", "ndimension"})
SIZE_ATTRIBUTES = frozenset({"ndim"})


def host_scalar(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``node`` is provably a Python number (never a tensor): a literal, ``float(x)``,
    ``int(x)``, ``len(x)``, a ``math`` call, a size (``x.shape[i]``, ``x.size(i)``,
    ``x.numel()``), arithmetic of those, the variable of a ``for ... in range(...)`` loop, or a
    local or module-level name bound only to such values."""
    if depth > MAX_DEPTH:
        return False
    if numeric(node):
        return True
    if isinstance(node, cst.UnaryOperation):
        return host_scalar(provenance, node.expression, frame, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.MatrixMultiply):
            return False
        return host_scalar(provenance, node.left, frame, depth + 1) and host_scalar(
            provenance, node.right, frame, depth + 1
        )
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Name) and func.value in SCALAR_BUILTINS:
            return not provenance.bindings(frame).of(func.value)
        if isinstance(func, cst.Attribute):
            if func.attr.value in SIZE_METHODS and not node.args:
                return True
            if func.attr.value == "size" and len(node.args) == 1 and not node.args[0].keyword:
                return True
        qualified = provenance.qualify(func)
        return qualified is not None and qualified.startswith("math.")
    if isinstance(node, cst.Attribute):
        return node.attr.value in SIZE_ATTRIBUTES
    if isinstance(node, cst.Subscript):
        # ``x.shape[i]`` (not a slice: ``x.shape[1:]`` is a torch.Size)
        value = node.value
        return (
            isinstance(value, cst.Attribute)
            and value.attr.value == "shape"
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        )
    if isinstance(node, cst.Name):
        return _scalar_name(provenance, node, frame, depth)
    return False


def _scalar_name(provenance: Provenance, name: cst.Name, frame: Frame, depth: int) -> bool:
    reaching = provenance.bindings(frame).reaching_bindings(name)
    if not reaching:
        if isinstance(frame.function, cst.Module):
            return False
        return module_constant(provenance, name) is not None and all(
            numeric(v) for v in _module_values(provenance, name)
        )
    bindings = provenance.bindings(frame)
    for binding in reaching:
        if binding.value is not None:
            if not host_scalar(provenance, binding.value, frame, depth + 1):
                return False
        elif binding.statement is bindings.root:
            # a parameter: a number if a ``range`` takes it or every call passes one
            if not (
                range_bound(frame, name.value)
                or provenance.passed_only(
                    name, frame, depth, lambda v, f, d: host_scalar(provenance, v, f, d)
                )
            ):
                return False
        elif not (
            range_target(binding.statement, name.value)
            or shape_unpacked(binding.statement, name.value)
        ):
            return False
    return True


def _module_values(provenance: Provenance, name: cst.Name) -> list[cst.BaseExpression]:
    module_frame = Frame(provenance.context.module)
    values = provenance.bindings(module_frame).of(name.value)
    return [v for v in values if v is not None] if all(v is not None for v in values) else []


def module_constant(provenance: Provenance, name: cst.Name) -> cst.BaseExpression | None:
    """The literal a module-level name is bound to, once, when a function reads it without
    binding it: a number, or a list or tuple of numbers (``SPECIAL_TOKENS = [101, 102]``).
    None otherwise (rebound, imported, computed)."""
    values = _module_values(provenance, name)
    if len(values) != 1:
        return None
    value = values[0]
    if numeric(value):
        return value
    if (
        isinstance(value, (cst.List, cst.Tuple))
        and value.elements
        and all(not isinstance(e, cst.StarredElement) and numeric(e.value) for e in value.elements)
    ):
        return value
    return None


def tensor_shape(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> bool:
    """``x.shape``, ``x.size()`` (a ``torch.Size``: a few ints), or a local name bound only to
    one."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(node, cst.Attribute):
        return node.attr.value == "shape"
    if isinstance(node, cst.Call):
        return (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "size"
            and not node.args
        )
    if isinstance(node, cst.Name):
        reaching = provenance.bindings(frame).reaching_bindings(node)
        return bool(reaching) and all(
            b.value is not None and tensor_shape(provenance, b.value, frame, depth + 1)
            for b in reaching
        )
    return False


def number_fill(
    node: cst.BaseExpression, provenance: Provenance, frame: Frame
) -> tuple[str, cst.BaseExpression] | None:
    """``("()", c)`` for a Python number ``c``, ``("(1,)", c)`` for ``[c]``; None otherwise.
    A number is a literal or what :func:`host_scalar` proves one (``float(x)``,
    ``x.shape[1]``, ``1.0 + step * dt`` of a ``range`` loop)."""
    if host_scalar(provenance, node, frame):
        return "()", node
    if (
        isinstance(node, (cst.List, cst.Tuple))
        and len(node.elements) == 1
        and not isinstance(node.elements[0], cst.StarredElement)
        and host_scalar(provenance, node.elements[0].value, frame)
    ):
        return "(1,)", node.elements[0].value
    return None

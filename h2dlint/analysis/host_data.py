"""Python data on the host: sequences and arrays whose length is unknown (what a tensor built
from them copies), and the code that runs on the host by design (data preprocessing). Shared by
the rules that judge tensors built from host data (HTD106, HTD301)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import MAX_DEPTH, Provenance

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
# Builtins returning a Python list or tuple of unknown length.
SEQUENCE_BUILTINS = frozenset({"list", "tuple", "sorted"})


def host_side(context: FileContext) -> bool:
    """Data preprocessing (processors, feature extractors, tokenizers, dataset annotations):
    it runs on the host unless the user asks for a device."""
    for node in reversed(context.ancestors):
        if isinstance(node, cst.FunctionDef) and node.name.value.startswith("post_process"):
            return False  # post-processing works on the model's outputs
    name = context.path.replace("\\", "/").rsplit("/", 1)[-1]
    if name.startswith(PREPROCESSING_MODULES):
        return True
    for node in reversed(context.ancestors):
        if isinstance(node, cst.ClassDef):
            return node.name.value.endswith(PREPROCESSING_CLASSES)
        if isinstance(node, cst.FunctionDef) and "annotation" in node.name.value:
            return True
    return False


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
        if qualified is not None:
            return qualified.startswith("numpy.") and qualified not in NUMPY_SCALARS
        if isinstance(func, cst.Name) and func.value in SEQUENCE_BUILTINS:
            return not provenance.bindings(frame).of(func.value)
        return False
    if isinstance(node, cst.Subscript):
        # A slice of a sequence or array is one; an element may be a scalar.
        if any(isinstance(element.slice, cst.Slice) for element in node.slice):
            return host_sequence(provenance, node.value, frame, depth + 1)
        return False
    if isinstance(node, cst.Name):
        # Every value that may reach the name is one; a parameter, when annotated as a numpy
        # array.
        def bound_to_one(value: cst.BaseExpression, frame: Frame, depth: int) -> bool:
            # ``ids = []`` grown by ``append``/``extend``: a list of unknown length
            empty_list = isinstance(value, cst.List) and not value.elements
            return empty_list or host_sequence(provenance, value, frame, depth)

        return provenance.bound_only_to(node, frame, depth, bound_to_one)
    return False


def _holds_nothing(node: cst.List | cst.Tuple) -> bool:
    return all(
        isinstance(e.value, (cst.List, cst.Tuple)) and _holds_nothing(e.value)
        for e in node.elements
    )

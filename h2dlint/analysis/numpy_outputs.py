"""A host copy that becomes the numpy array its function declares it returns (HTD202).

``def predict(self, x) -> np.ndarray: ... return action.cpu().numpy()``, a SAM predictor's
``predict(...) -> tuple[np.ndarray, np.ndarray, np.ndarray]`` returning ``masks_np``, a codec
wrapper's ``get_waveform(...) -> Tuple[np.ndarray, str]``: the function's annotation says
that what it hands its caller is a numpy array, so its caller is host code (OpenCV, an
environment, a file writer, a web response), and the copy of its result to the host is the
operation it exists for, not a read of a step that could have stayed on the device. A per-step
sampler hands back tensors (or the Python ids of a ``list[int]``), not a declared numpy array;
that is the fact that separates the two, stated by the code's own author.

Only a copy whose value reaches ``.numpy()`` (:func:`host_io_calls.to_numpy`) counts, outside
the loops of its function (an autoregressive ``generate(...) -> np.ndarray`` that copies each
step's token in its loop stalls per step, whatever it returns at the end), in a function (not a
lambda) that is no method of a torch module (a ``forward`` that returns numpy is
still called by the module's callers, maybe per step), whose return annotation names a numpy
array (``np.ndarray``, ``NDArray[...]``, ``npt.NDArray``), alone or inside ``Optional``,
``Union``, ``X | None``, ``tuple``, ``list`` or ``dict``, not under an iterator or generator type
(a generator yields per step of its loop: ``Iterator[tuple[np.ndarray, Tensor]]``).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import module_subclass
from h2dlint.analysis.host_io_calls import to_numpy

# The names of numpy's array types in annotations.
_ARRAY_NAMES = frozenset({"ndarray", "NDArray"})
# Wrappers whose arguments are what the function returns at once.
_CONTAINERS = frozenset(
    {"Optional", "Union", "tuple", "Tuple", "list", "List", "dict", "Dict", "Sequence"}
)


def declared_numpy_output(ancestors: Sequence[cst.CSTNode], copy: cst.Call) -> bool:
    """Whether the host copy ``copy`` (below ``ancestors``, innermost last) becomes a numpy
    array in a function that declares a numpy array as its result (see the module)."""
    for i in range(len(ancestors) - 1, -1, -1):
        node = ancestors[i]
        if isinstance(node, (cst.Lambda, cst.For, cst.While, cst.BaseComp, cst.DictComp)):
            return False  # per iteration: a generation loop may copy each step's tokens
        if isinstance(node, cst.FunctionDef):
            owner = ancestors[i - 2] if i >= 2 else None
            if isinstance(owner, cst.ClassDef) and module_subclass(owner):
                return False
            returns = node.returns
            return (
                returns is not None
                and numpy_annotation(returns.annotation)
                and to_numpy(node, copy)
            )
    return False


def numpy_annotation(annotation: cst.BaseExpression) -> bool:
    """Whether a return annotation names a numpy array, at once (not under an iterator)."""
    if isinstance(annotation, (cst.SimpleString, cst.ConcatenatedString)):
        text = annotation.evaluated_value if isinstance(annotation, cst.SimpleString) else None
        return isinstance(text, str) and _text_names_array(text)
    if isinstance(annotation, cst.BinaryOperation):  # ``np.ndarray | None``
        return numpy_annotation(annotation.left) or numpy_annotation(annotation.right)
    if isinstance(annotation, cst.Subscript):
        base = _last_name(annotation.value)
        if base in _ARRAY_NAMES:
            return True  # ``NDArray[np.float32]``
        if base not in _CONTAINERS:
            return False  # ``Iterator[...]``, ``Generator[...]``, ``Callable[...]``
        return any(
            isinstance(element.slice, cst.Index) and numpy_annotation(element.slice.value)
            for element in annotation.slice
        )
    return _last_name(annotation) in _ARRAY_NAMES


def _text_names_array(text: str) -> bool:
    head = text.split("[", 1)[0].strip()
    if head.rpartition(".")[2] in _ARRAY_NAMES:
        return True
    if head.rpartition(".")[2] not in _CONTAINERS and "|" not in text:
        return False
    return any(name in text for name in ("ndarray", "NDArray")) and "Iterator" not in text


def _last_name(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""

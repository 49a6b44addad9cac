"""A comparison with a whole numpy array is made on the host.

``dataset_mask = np_dataset_names == dataset_name`` of ``np_dataset_names =
np.array(data.dataset)`` (fairchem's multi-dataset heads, ``models/uma/escn_moe.py:590``,
session 49, triage49b) is a numpy mask, whatever the other side is: numpy compares Python
data itself, a CPU tensor on the other side makes a CPU tensor, and a CUDA tensor cannot
meet an array of one or more dimensions (PyTorch turns the array into a CPU tensor and
refuses to mix devices). Indexing with such a mask, or testing it, reads nothing from a
device. Only a name bound to what a numpy array constructor returns counts as a whole array:
an element (``labels[i]``) or a reduction (``np.max(a)``) is a numpy scalar, and a scalar
compared with a device tensor gives a device tensor. A comparison whose other side is a tensor
(proven, or a parameter annotated as one: ``counts < targets`` of ``counts = np.zeros(n)`` and
``targets: torch.Tensor``, an HTD201 example) keeps the tensor's judgement: only the unknown
other sides of Python data (a loop's names, a string) are settled here.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.tensor_kinds import is_tensor

# numpy functions that return an array of the data they are given (``np.array(names)``), or
# of a shape they are given: not a scalar.
ARRAY_CONSTRUCTORS = frozenset(
    f"numpy.{name}"
    for name in (
        "array",
        "asarray",
        "stack",
        "concatenate",
        "vstack",
        "hstack",
        "zeros",
        "ones",
        "full",
        "empty",
        "arange",
        "linspace",
        "zeros_like",
        "ones_like",
        "full_like",
    )
)


def whole_numpy_array(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``node`` is a numpy array constructor's call, or a name every reaching binding
    of which is one."""
    if isinstance(node, cst.Call):
        return (provenance.qualify(node.func) or "") in ARRAY_CONSTRUCTORS
    if not isinstance(node, cst.Name):
        return False
    values = provenance.bindings(frame).reaching(node)
    return bool(values) and all(
        isinstance(value, cst.Call) and whole_numpy_array(provenance, value, frame)
        for value in values
    )


def numpy_comparison(provenance: Provenance, node: cst.Comparison, frame: Frame) -> bool:
    """Whether an operand of ``node`` is a whole numpy array (:func:`whole_numpy_array`) and
    no other is a tensor (:func:`tensor_kinds.is_tensor`)."""
    operands = [node.left, *(c.comparator for c in node.comparisons)]
    arrays = [whole_numpy_array(provenance, operand, frame) for operand in operands]
    if not any(arrays):
        return False
    return not any(
        _tensor_side(provenance, operand, frame)
        for operand, array in zip(operands, arrays, strict=True)
        if not array
    )


def _tensor_side(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``node`` is a tensor, or a name some reaching binding of which is one
    (``targets`` of ``targets = limits`` and ``limits: torch.Tensor``): a tensor side keeps
    the comparison a tensor's."""
    if is_tensor(provenance, node, frame):
        return True
    if not isinstance(node, cst.Name) or depth >= 3:
        return False
    return any(
        value is not None and _tensor_side(provenance, value, frame, depth + 1)
        for value in provenance.bindings(frame).reaching(node)
    )


def numpy_mask(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``node`` is such a comparison, or a name every reaching binding of which is
    one (``dataset_mask`` of ``dataset_mask = np_names == name``): HTD201 leaves its rows."""
    if isinstance(node, cst.Comparison):
        return numpy_comparison(provenance, node, frame)
    if not isinstance(node, cst.Name):
        return False
    values = provenance.bindings(frame).reaching(node)
    return bool(values) and all(
        isinstance(value, cst.Comparison) and numpy_comparison(provenance, value, frame)
        for value in values
    )

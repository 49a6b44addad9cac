"""Numpy arrays built from Python data in the function, wrapped with ``torch.from_numpy``.

``ptrs = np.array([t.data_ptr() for t in kv], dtype=np.uint64).view(np.int64)`` then
``torch.from_numpy(ptrs).to(device)``: the array is the Python list, converted on the host;
wrapping and moving it is the same pageable blocking copy as ``torch.tensor(data).to(device)``
(HTD301), spelled through numpy. An array the function was given or loaded (``np.load``, a
decoder's output, another numpy computation) is how host data reaches the device by design,
and is not this.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional
from h2dlint.analysis.frames import Frame, unrebound_parameter_annotation
from h2dlint.analysis.host_data import host_sequence, number_sequence_annotation
from h2dlint.analysis.provenance import Provenance

# Numpy's constructors of an array from a Python sequence.
_ARRAY_CONSTRUCTORS = frozenset({"numpy.array", "numpy.asarray", "numpy.fromiter"})
# Methods that keep an array's values and its host memory (a reinterpretation or a cast).
_ARRAY_RELAYOUTS = frozenset({"view", "astype", "reshape", "ravel", "flatten", "squeeze"})


def wrapped_python_data(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame
) -> cst.BaseExpression | None:
    """When ``node`` is ``torch.from_numpy(arr)`` of an array built in the function from
    Python data of unknown length (a list display, a comprehension, a helper that returns a
    list; every binding of ``arr``): that data; else None."""
    if not (
        isinstance(node, cst.Call)
        and provenance.qualify(node.func) == "torch.from_numpy"
        and len(node.args) == 1
    ):
        return None
    return _array_data(provenance, node.args[0].value, frame, 0)


def _array_data(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int
) -> cst.BaseExpression | None:
    if depth > 4:
        return None
    if isinstance(node, cst.Name):
        values = provenance.bindings(frame).reaching(node)
        if not values or any(v is None for v in values):
            return None
        found = [_array_data(provenance, v, frame, depth + 1) for v in values if v is not None]
        return found[0] if found and all(f is not None for f in found) else None
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in _ARRAY_RELAYOUTS:
        return _array_data(provenance, func.value, frame, depth + 1)
    if provenance.qualify(func) not in _ARRAY_CONSTRUCTORS:
        return None
    data = first_positional(node)
    if data is None or isinstance(data, cst.Tuple):
        return None  # ``np.array((a, b))``: a few values
    return data if _python_data(provenance, data, frame, 0) else None


def _python_data(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int
) -> bool:
    """Whether ``node`` is a Python sequence of unknown length made in the function or returned
    by a helper as one (``[t.data_ptr() for t in kv]``, ``list(range(n))``, a helper annotated
    ``-> list[int]``, a name bound only to such values or to ``[]`` grown later); not a numpy
    array, which host data already is (``np.asarray(frames)``, ``np.meshgrid(...)``)."""
    if depth > 4:
        return False
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return True
    if isinstance(node, cst.List):
        return host_sequence(provenance, node, frame)
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value in ("list", "sorted", "range"):
            return not provenance.bindings(frame).of(node.func.value)
        found = provenance.callee(node, frame)
        returns = found[1].returns if found is not None else None
        return (
            found is not None
            and returns is not None
            and number_sequence_annotation(found[0], returns.annotation)
        )
    if isinstance(node, cst.Name):
        annotation = unrebound_parameter_annotation(provenance.bindings(frame), node, frame)
        if annotation is not None:  # ``ids: list[int]``; not ``frames: np.ndarray``
            return number_sequence_annotation(provenance, annotation)
        values = provenance.bindings(frame).reaching(node)
        return bool(values) and all(
            value is not None
            and (
                (isinstance(value, cst.List) and not value.elements)  # ``[]`` grown later
                or _python_data(provenance, value, frame, depth + 1)
            )
            for value in values
        )
    return False

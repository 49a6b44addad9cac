"""Whether data of unknown type that ``torch.tensor(data, device=...)`` converts is most likely
host data (a Python list or number, a host array) converted per step or per iteration, and
whether the data is empty where it is converted. HTD106 (a tensor built from host data on the
device) asks these.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import (
    dataset_module,
    host_scalar,
    module_constant,
    tensor_shape,
)
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.loop_body import (
    export_branch,
    in_loop_body,
    occasional,
    per_batch_method,
    pipeline_code,
    set_once,
)
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import FileContext


def maybe_host_data(
    context: FileContext,
    call: cst.Call,
    data: cst.BaseExpression,
    provenance: Provenance,
    frame: Frame,
) -> bool:
    """``torch.tensor(x, device=...)`` of a name, attribute or element whose type is
    unknown, per step (a hot function) or per iteration (a loop): a Python list or number
    or a host array in all but a device tensor's case, and ``torch.tensor`` of a tensor is
    discouraged (PyTorch warns), so a copy from the host is what it does. Scalars that
    :func:`host_scalar` proves are HTD107's; ``as_tensor``/``asarray`` of a device tensor
    are no-ops and stay unflagged, unless the data's name says numpy (``positions_np``)."""
    qualified = provenance.qualify(call.func)
    if qualified != "torch.tensor" and not (
        qualified in ("torch.as_tensor", "torch.asarray") and _numpy_named(data)
    ):
        return False
    if isinstance(data, (cst.List, cst.Tuple)):
        # a short display of values of unknown type (``[scale]``, ``[start + 1, x.shape[1]]``)
        # beside numbers; one of numbers only is HTD107's constant
        if not data.elements or not all(
            isinstance(e, cst.Element) and _display_value(provenance, e.value, frame)
            for e in data.elements
        ):
            return False
        if all(host_scalar(provenance, e.value, frame) for e in data.elements):
            return False
    elif not isinstance(data, (cst.Name, cst.Attribute, cst.Subscript)):
        return False
    if host_scalar(provenance, data, frame) or tensor_shape(provenance, data, frame):
        return False  # a number or a shape: a few bytes (scalars are HTD107's)
    if isinstance(data, cst.Name) and module_constant(provenance, data) is not None:
        return False  # a constant table: HTD107's
    if provenance.where(data, frame) is not Where.UNKNOWN:
        return False  # a tensor (on the device: no host copy; on the host: HTD301's)
    ancestors = context.ancestors
    if constant_case(ancestors, data):
        return False  # ``for offsets in [[0, 16], [16, 16]]:``: a constant per case (HTD107's)
    hot_paths = HotPaths.of(context)
    if hot_paths.test_module or occasional(context.path, ancestors) or dataset_module(context):
        return False  # a test, now-and-then code, a data loader's samples and batches
    if set_once(ancestors, context.module, provenance, frame):
        return False  # made on a cache miss
    if export_branch(ancestors, context.module):
        return False
    if in_loop_body(ancestors):
        return True
    if pipeline_code(context.path, ancestors):
        return False  # per request, before the steps: nothing queued to wait for
    return hot_paths.why_hot_at(ancestors) is not None or per_batch_method(ancestors) is not None


def _numpy_named(data: cst.BaseExpression) -> bool:
    """``batch.positions_np``, ``ids_numpy``: a name that says numpy array (``as_tensor`` of
    one copies it from pageable memory; of a device tensor it would be a no-op)."""
    node = data.value if isinstance(data, cst.Subscript) else data
    name = (
        node.attr.value
        if isinstance(node, cst.Attribute)
        else node.value
        if isinstance(node, cst.Name)
        else ""
    ).lower()
    return name.endswith(("_np", "_numpy")) or name.startswith(("np_", "numpy_"))


def constant_case(ancestors: Sequence[cst.CSTNode], data: cst.BaseExpression) -> bool:
    """Whether ``data`` is the variable of a loop around it over a literal list or tuple of
    constant cases (``for offsets in [[0, 16], [16, 16]]:``): each iteration's value is a
    constant written out, as ``torch.tensor([0, 16], device=d)`` is, and the loop runs a fixed,
    small number of times (test cases, a few configurations), not once per item of data."""
    if not isinstance(data, cst.Name):
        return False
    for node in reversed(ancestors):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name):
            if node.target.value != data.value:
                continue
            cases = node.iter
            return (
                isinstance(cases, (cst.List, cst.Tuple))
                and bool(cases.elements)
                and all(
                    isinstance(e, cst.Element) and _literal(e.value, nested=True)
                    for e in cases.elements
                )
            )
    return False


def _literal(node: cst.BaseExpression, nested: bool = False) -> bool:
    """A literal number (``-1`` too), or, when ``nested``, a list or tuple of them."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    return (
        nested
        and isinstance(node, (cst.List, cst.Tuple))
        and all(isinstance(e, cst.Element) and _literal(e.value) for e in node.elements)
    )


def _display_value(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """An element of a short display that :func:`maybe_host_data` takes: a proven number, or a
    name, attribute or arithmetic of them whose type is unknown (not a tensor in hand, not a
    sequence)."""
    if host_scalar(provenance, node, frame):
        return True
    if isinstance(node, cst.BinaryOperation):
        return _display_value(provenance, node.left, frame) and _display_value(
            provenance, node.right, frame
        )
    return (
        isinstance(node, (cst.Name, cst.Attribute))
        and provenance.where(node, frame) is Where.UNKNOWN
    )


def empty_here(ancestors: Sequence[cst.CSTNode], call: cst.Call, data: cst.BaseExpression) -> bool:
    """In the ``else`` of a test of the data's length, where it is empty."""
    child: cst.CSTNode = call
    for node in reversed(ancestors):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if (
            isinstance(node, (cst.If, cst.IfExp))
            and child is node.orelse
            and isinstance(data, cst.Name)
            and tests_size(node.test, data.value)
        ):
            return True
        child = node
    return False


def tests_size(test: cst.BaseExpression, name: str) -> bool:
    """``name`` or ``len(name) ...`` is what ``test`` checks."""
    if isinstance(test, cst.Name):
        return test.value == name
    if isinstance(test, cst.Comparison):
        test = test.left
    return (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Name)
        and test.func.value == "len"
        and bool(test.args)
        and isinstance(test.args[0].value, cst.Name)
        and test.args[0].value.value == name
    )

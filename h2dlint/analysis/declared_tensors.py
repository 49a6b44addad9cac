"""Tensors by declaration (HTD201): what a programmer declared a tensor, and what is cut or
computed from one.

A parameter annotated as a tensor is one (:func:`tensor_kinds.annotated_tensor_parameter`); so
is a field its class declares as one (``cu_seqlens: torch.Tensor`` of a ``NamedTuple`` or a
dataclass of packed inputs), a slice or an index of such a tensor (``cu_seqlens[:-1]``),
arithmetic with one (``(cu[1:] - cu[:-1]) // n``), and a name every reaching binding of which is
one of those (``cu = packed.cu_seqlens``), also where a closure reads it from the function
it is defined in (``def process(val):`` inside ``get_batch_on_this_cp_rank``). Its rows are
tensors whatever the loop counts with, as the rows of an annotated parameter are (session 44,
rows44: agilerl's ``int(cu[b])`` of ``cu = packed.cu_seqlens``, Transformer Engine's
``zip(slice_sizes, cu_seqlens_padded[:-1])``).
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.analysis.nested_functions import nested_functions
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.tensor_kinds import annotated_tensor_field, annotated_tensor_parameter
from h2dlint.analysis.tuple_annotations import tensor_annotation

# Arithmetic whose result is a tensor when an operand is one (not ``@`` of unknown operands,
# nor the comparisons and boolean operators, which are other nodes).
_TENSOR_ARITHMETIC = (
    cst.Add,
    cst.Subtract,
    cst.Multiply,
    cst.Divide,
    cst.FloorDivide,
    cst.Modulo,
    cst.Power,
)

_MAX_DEPTH = 4


def declared_tensor(
    provenance: Provenance,
    node: cst.BaseExpression,
    frame: Frame,
    module: cst.Module | None = None,
    depth: int = 0,
) -> bool:
    """Whether ``node`` is a tensor by declaration (see the module's docstring); with
    ``module`` (the file's), a name a closure does not bind is looked up in the function
    the closure is defined in."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, cst.Name):
        if annotated_tensor_parameter(provenance, node, frame):
            return True
        bindings = provenance.bindings(frame)
        values = bindings.reaching(node)
        if not values and not bindings.of(node.value) and module is not None:
            return _free_name(provenance, node, frame, module, depth)
        return bool(values) and all(
            value is not None and declared_tensor(provenance, value, frame, module, depth + 1)
            for value in values
        )
    if isinstance(node, cst.Attribute):
        return annotated_tensor_field(provenance, node, frame)
    if isinstance(node, cst.Subscript):
        return declared_tensor(provenance, node.value, frame, module, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _TENSOR_ARITHMETIC):
        return any(
            declared_tensor(provenance, side, frame, module, depth + 1)
            for side in (node.left, node.right)
        )
    return False


def _free_name(
    provenance: Provenance, node: cst.Name, frame: Frame, module: cst.Module, depth: int
) -> bool:
    """A name a closure reads from the function it is defined in: a tensor there on every
    binding (a parameter annotated as one, or values that are tensors by declaration)."""
    if not isinstance(frame.function, cst.FunctionDef):
        return False
    outer = _parents(module).get(frame.function)
    if outer is None:
        return False
    outer_frame = Frame(outer)
    values = provenance.bindings(outer_frame).of(node.value)
    if not values:
        return False
    for value in values:
        if value is None:  # the enclosing function's parameter
            annotation = parameter_annotation(node, outer_frame)
            if annotation is None or not tensor_annotation(provenance, annotation):
                return False
        elif not declared_tensor(provenance, value, outer_frame, module, depth + 1):
            return False
    return True


_PARENTS: dict[int, tuple[cst.Module, dict[cst.FunctionDef, cst.FunctionDef]]] = {}


def _parents(module: cst.Module) -> dict[cst.FunctionDef, cst.FunctionDef]:
    """:func:`nested_functions` of the file being checked, computed once per file."""
    kept = _PARENTS.get(id(module))
    if kept is None or kept[0] is not module:
        _PARENTS.clear()
        kept = _PARENTS[id(module)] = (module, nested_functions(module))
    return kept[1]

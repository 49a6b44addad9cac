"""Host tensors built from sizes alone through local names: a mask or an index table computed on
the host from shape factories (``torch.arange(n)``, ``torch.tensor([x.shape[1]] * b)``), views,
comparisons and arithmetic of them, bound to names each read once, and then moved to the device
(session 24: NeMo's Sortformer `length_to_mask` compared an arange with host lengths made from
shapes and copied the (batch, frames) mask to the device on every forward). Every value of such
a tensor can be computed on the device from the same sizes: the copy and the host work are
needless. Asked by HTD301 where the moved receiver is a name, not a factory chain."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword, positional
from h2dlint.analysis.factories import (
    EXACT_METHODS,
    SHAPE_FACTORIES,
    basic_view_index,
    factory_of,
    numeric_constant,
    subscript_parts,
)
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import SharedKey
from h2dlint.walk import visit_read_only

# Keywords that make a factory more than sizes on the host.
_NOT_HOST_KEYWORDS = ("device", "out", "pin_memory", "requires_grad")
_CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor"})
_ELEMENTWISE = (
    cst.Add,
    cst.Subtract,
    cst.Multiply,
    cst.FloorDivide,
    cst.Modulo,
    cst.BitAnd,
    cst.BitOr,
    cst.BitXor,
)
_MAX_DEPTH = 6
# Attributes and methods that read a tensor's metadata, not its values.
_METADATA = frozenset({"device", "dtype", "shape", "ndim", "size", "dim", "numel"})
_VALUE_READS: SharedKey[dict[cst.CSTNode, dict[str, int]]] = SharedKey("value reads per name")


class _ValueReads(cst.CSTVisitor):
    """Counts each name's appearances in a function, leaving out reads of its metadata
    (``lengths.device``, ``x.shape``, ``x.size(0)``) and constant fills of its ranges
    (``mask[start:end, start:end] = True``: part of building the tensor from sizes)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] = self.counts.get(node.value, 0) + 1

    def visit_Assign(self, node: cst.Assign) -> bool:
        if len(node.targets) == 1 and constant_fill(node.targets[0].target, node.value):
            visit_read_only(node.value, self)  # the target's own name is no value read
            return False
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if not (isinstance(node.value, cst.Name) and node.attr.value in _METADATA):
            visit_read_only(node.value, self)
        return False


def _value_reads(provenance: Provenance, frame: Frame, name: str) -> int:
    """How often ``name``'s value is read in ``frame``'s function (its one binding not
    counted)."""
    memo = provenance.context.shared(_VALUE_READS, dict)
    function = frame.function
    if function not in memo:
        collector = _ValueReads()
        visit_read_only(function, collector)
        memo[function] = collector.counts
    return memo[function].get(name, 0) - 1


def size_built_name(
    provenance: Provenance, receiver: cst.BaseExpression, frame: Frame
) -> cst.Name | None:
    """The local name at the root of ``receiver`` (through value-exact methods and basic
    views) when it holds a host tensor built from sizes alone, read only where it is moved;
    None otherwise. A name bound more than once, a parameter, a name read elsewhere (the host
    tensor has other uses) and a module-level name answer None."""
    if not isinstance(frame.function, cst.FunctionDef):
        return None
    root = _strip(receiver)
    if not isinstance(root, cst.Name):
        return None
    if not _built(provenance, root, frame, 0, seen=set()):
        return None
    return root


def _strip(node: cst.BaseExpression) -> cst.BaseExpression:
    while True:
        if isinstance(node, cst.Subscript) and basic_view_index(node):
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in EXACT_METHODS
            and node.func.attr.value != "fill_"
        ):
            node = node.func.value
        else:
            return node


def _built(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int, seen: set[str]
) -> bool:
    """Whether ``node`` is a host tensor computed from sizes alone."""
    if depth > _MAX_DEPTH:
        return False
    node = _strip(node)
    if isinstance(node, cst.Name):
        return _name_built(provenance, node, frame, depth, seen)
    if isinstance(node, cst.Comparison):
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        return _operands_built(provenance, operands, frame, depth, seen)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ELEMENTWISE):
        return _operands_built(provenance, [node.left, node.right], frame, depth, seen)
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "to":
        # ``x.to(lengths.device)`` of a host tensor: still on the host, by the facts
        if not provenance.fact(node, frame).where.on_host:
            return False
        return _built(provenance, func.value, frame, depth + 1, seen)
    factory = factory_of(node)
    if factory is None or any(keyword(factory, k) for k in _NOT_HOST_KEYWORDS):
        return False
    qualified = provenance.qualify(factory.func)
    if qualified in SHAPE_FACTORIES:
        return True
    if qualified in _CONSTRUCTORS:
        data = first_positional(factory)
        return data is not None and len(positional(factory)) == 1 and _sizes_fill(data)
    return False


def _operands_built(
    provenance: Provenance,
    operands: list[cst.BaseExpression],
    frame: Frame,
    depth: int,
    seen: set[str],
) -> bool:
    """Every operand a number or a size-built tensor, and at least one such tensor."""
    tensors = 0
    for operand in operands:
        if numeric_constant(operand):
            continue
        if not _built(provenance, operand, frame, depth + 1, seen):
            return False
        tensors += 1
    return tensors > 0


def _name_built(
    provenance: Provenance, name: cst.Name, frame: Frame, depth: int, seen: set[str]
) -> bool:
    if name.value in seen:
        return False
    bindings = provenance.bindings(frame)
    values = bindings.of(name.value)
    if len(values) != 1 or values[0] is None or bindings.is_parameter(name):
        return False
    if _value_reads(provenance, frame, name.value) != 1:
        return False  # the host tensor has another use, or the name is rebound
    return _built(provenance, values[0], frame, depth + 1, seen | {name.value})


def constant_fill(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """``mask[start:end, start:end] = True``, ``m[:, :n] = 0``, ``m[0] = 1``: a number written
    into ranges of a local name, the ranges' bounds Python numbers by their spelling (names,
    literals, arithmetic and ``len(...)`` of them; an index a literal). The values then
    depend on sizes alone, as a factory's do: a block-diagonal mask filled block by block on
    the host (eole 0.4's vision encoder) can be filled on the device the same way."""
    if not (
        isinstance(target, cst.Subscript)
        and isinstance(target.value, cst.Name)
        and numeric_constant(value)
    ):
        return False
    return subscript_parts(target, numeric_constant, _host_number)


def _host_number(node: cst.BaseExpression) -> bool:
    """A slice bound spelled as a Python number: a literal, a plain name, ``len(x)``, or
    arithmetic of those."""
    if numeric_constant(node) or isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ELEMENTWISE):
        return _host_number(node.left) and _host_number(node.right)
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "len"
        and len(node.args) == 1
    )


def _sizes_fill(node: cst.BaseExpression) -> bool:
    """``[x.shape[1]] * b``, ``[n] * b`` with the element a size or a number: one size
    repeated."""
    if not isinstance(node, cst.BinaryOperation) or not isinstance(node.operator, cst.Multiply):
        return False
    return any(
        isinstance(side, cst.List)
        and len(side.elements) == 1
        and (numeric_constant(side.elements[0].value) or _size(side.elements[0].value))
        for side in (node.left, node.right)
    )


def _size(node: cst.BaseExpression) -> bool:
    """``x.shape[i]`` or ``x.size(i)`` with a literal ``i``."""
    if isinstance(node, cst.Subscript):
        value = node.value
        return (
            isinstance(value, cst.Attribute)
            and value.attr.value == "shape"
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and numeric_constant(node.slice[0].slice.value)
        )
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        arg = first_positional(node)
        return node.func.attr.value == "size" and arg is not None and numeric_constant(arg)
    return False

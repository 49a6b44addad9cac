"""Small facts of per-item transfers (HTD101), kept out of ``loop_transfers.py`` for size.

*Python data built from a loop item.* ``torch.tensor([1] * len(item))``,
``torch.tensor([t * 2 for t in row])``, ``torch.tensor(list(item.ids))``: a host tensor made
per item from data whose size follows the item, as ``torch.tensor(item)`` is. A number
(``len(item)``, ``int(x)``) or a short display (``[start, end]``) is no such data: a few bytes
per item, nothing worth batching.

*A tensor as a copy's target.* ``x.to(other)`` gives ``x`` the device (and dtype) of
``other``, and ``x.to(other.device)`` its device. A host tensor made per item and moved that
way is copied to wherever ``other`` lives: a device tensor in model code. ``other`` counts as a
tensor only on evidence in the function: indexed with two or more indices (``mask[0, 0]``), or
passed to a ``torch`` function that takes tensors (``torch.zeros_like(mask)``,
``torch.cat([mask, extra])``); and not when the analysis proves it on the host.

*A host tensor made on the device.* ``torch.tensor(row, device=dev)`` of a loop item copies the
item's data from the host, one blocking copy per item, as ``torch.tensor(row).to(dev)`` does
(HTD106 leaves one item per loop iteration to HTD101).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import sequence_row_item
from h2dlint.analysis.names import names_in
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.torch_api import LIKE_FACTORIES
from h2dlint.walk import visit_read_only

# Calls that turn an item's data into a list the size of the item.
LISTING_CALLS = frozenset({"list", "tuple", "sorted", "reversed"})
# ``torch`` functions whose tensor arguments say the argument is a tensor.
TENSOR_ARGUMENT_FUNCTIONS = frozenset({"torch.cat", "torch.concat", "torch.stack"}) | LIKE_FACTORIES


def built_from_item(data: cst.BaseExpression, loop_names: set[str]) -> bool:
    """Whether ``data`` is Python data whose size follows a loop item (see the module)."""
    if isinstance(data, cst.BinaryOperation) and isinstance(data.operator, cst.Multiply):
        sides = (data.left, data.right)
        display = [s for s in sides if isinstance(s, (cst.List, cst.Tuple))]
        other = [s for s in sides if not isinstance(s, (cst.List, cst.Tuple))]
        return len(display) == 1 and len(other) == 1 and bool(names_in(other[0]) & loop_names)
    if isinstance(data, (cst.ListComp, cst.GeneratorExp)):
        return bool(names_in(data.for_in.iter) & loop_names)
    if (
        isinstance(data, cst.Call)
        and isinstance(data.func, cst.Name)
        and data.func.value in LISTING_CALLS
        and len(data.args) == 1
    ):
        arg = data.args[0].value
        return isinstance(arg, (cst.Name, cst.Attribute, cst.Subscript)) and bool(
            names_in(arg) & loop_names
        )
    return False


class _TensorUses(cst.CSTVisitor):
    """Code of the expressions a function indexes with two or more indices or passes to a
    ``torch`` function that takes tensors."""

    def __init__(self, provenance: Provenance, module: cst.Module) -> None:
        self.provenance = provenance
        self.module = module
        self.found: set[str] = set()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) >= 2:
            self.found.add(self.module.code_for_node(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        if self.provenance.qualify(node.func) not in TENSOR_ARGUMENT_FUNCTIONS or not node.args:
            return
        first = node.args[0].value
        values = (
            [e.value for e in first.elements]
            if isinstance(first, (cst.List, cst.Tuple))
            else [first]
        )
        for value in values:
            if isinstance(value, (cst.Name, cst.Attribute)):
                self.found.add(self.module.code_for_node(value))


def tensor_target(
    provenance: Provenance, call: cst.Call, frame: Frame
) -> cst.BaseExpression | None:
    """The tensor whose device ``call`` (``x.to(other)``, ``x.to(other.device)``) copies to,
    when the function shows it is a tensor not on the host (see the module); else None."""
    args = [a for a in call.args if not a.star]
    if len(args) != 1 or args[0].keyword is not None:
        return None
    target = args[0].value
    device = isinstance(target, cst.Attribute) and target.attr.value == "device"
    if isinstance(target, cst.Attribute) and device:
        target = target.value
    if not isinstance(target, (cst.Name, cst.Attribute)):
        return None
    if isinstance(target, cst.Name) and target.value in ("self", "cls"):
        return None
    if provenance.where(target, frame).on_host:
        return None
    if device:
        return target  # ``other.device``: only a tensor (or a module) has one
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return None
    uses = _TensorUses(provenance, provenance.context.module)
    visit_read_only(function.body, uses)
    return target if provenance.context.module.code_for_node(target) in uses.found else None


# Factories that copy Python or numpy data to the device given as ``device=``.
DEVICE_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})
# Of those, the ones that pass a tensor already on the device through without a copy.
PASSING_FACTORIES = frozenset({"torch.as_tensor", "torch.asarray"})


def made_on_device(
    node: cst.Call,
    provenance: Provenance,
    frame: Frame,
    item_data: Callable[[cst.BaseExpression], bool],
) -> cst.BaseExpression | None:
    """The item data ``torch.tensor(row, device=dev)`` copies to the device (a host tensor made
    of it and copied, as ``torch.tensor(row).to(dev)`` does), when ``item_data`` says it is
    the loop item's data; None otherwise. ``as_tensor``/``asarray`` pass a device tensor
    through, so they count only for data proven on the host."""
    called = provenance.qualify(node.func)
    device = keyword(node, "device")
    if called not in DEVICE_FACTORIES or device is None:
        return None
    if provenance.device_target(device.value, frame, allocation=True) is not Target.DEVICE:
        return None
    data = first_positional(node)
    if data is None or not item_data(data):
        return None
    if called in PASSING_FACTORIES and not (
        provenance.is_host_data(data, frame)
        or provenance.where(data, frame).on_host
        # a row of ``rows: list[list[int]]``: a Python list, never a device tensor
        or (isinstance(data, cst.Name) and sequence_row_item(provenance, data, frame))
    ):
        return None
    return data

"""Loops that do other work per item and also move each item to the device, into a list (HTD101).

The gathering loops of ``loops.py`` do nothing but move and store each item. That leaves out the
common input loop of an inference pipeline: each input is opened, checked or converted on the
host, then moved on its own and appended to a list that is stacked or resized after the loop::

    for img in images:
        if isinstance(img, str):
            img = Image.open(img)
        if not isinstance(img, torch.Tensor):
            img = F.to_tensor(img)
        sizes.append(img.shape[1:])
        batch.append(img.to(self.model.device))

What the body does besides is host work on the item; the copies are still one per item (and
from pageable memory one sync per item). A ``for`` loop is a *collecting loop* when

- a statement of its own body, not nested in a branch (it runs for every item), appends to a
  list bound outside the loop a transfer of the item (``loop_transfers.item_transfer``), or a
  name bound just before in the body to one (``t = x.to(dev)``, then ``out.append(t)``) that
  nothing else in the body reads;
- the item is followed through the names the body binds from it, at any depth: a part or
  alias of it (``img_tensor = img``), or what a module's function makes of it (``t =
  torch.from_numpy(arr)`` of ``arr = np.asarray(img)``, ``img = F.to_tensor(img)``, ``img =
  Image.open(img)``): a conversion of its data. What a method of the item or of an object
  returns (``x = req.load()``, ``h = self.encoder(img)``) is that object's work, whose result
  may live anywhere, and a size or count taken of it (``n = len(item)``) is no item;
- the body runs no model and no step (``hot_calls.runs_model``), and awaits and yields
  nothing: a loop that moves a batch and runs the model consumes the copy in its iteration,
  one copy per step being the floor, and so does one that reads the moved value again;
- the body copies or allocates nothing else on the device (another ``.to(device)``,
  ``.cuda()``, a factory with ``device=``): what it appends may then be made of what it moved
  already (``pixels = x.to(device)``, resized there, then ``out.append(pixels.to(dtype=...,
  device=device))``, a move within the device), and the loop does device work per item.

The item goes to the model: a move to a model's own device (``self.model.device``) counts
here, where in a gathering loop or a comprehension it reads as aligning with another tensor's
device (moving a list of token tensors to ``model.device`` every decoding step, as
mini-omni's generator does, re-places tensors already there).

Whatever else holds for gathering loops holds here too (the rule asks ``loops.py``'s exclusions
of iterables and items: a few items, model state, mappings, batches of a loader, items proven on
the device; a per-item device or another tensor's device is no transfer).
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_calls import runs_model
from h2dlint.analysis.loop_iterables import into_items_device, item_excluded, iterable_excluded
from h2dlint.analysis.loop_transfers import (
    STORE_METHODS,
    GatheringLoop,
    Transfer,
    called_method,
    index_names,
    item_transfer,
    model_named,
)
from h2dlint.analysis.names import calls_in, names_in, names_read, target_names
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.walk import OwnScopeVisitor, visit_read_only

# Calls whose result is a number taken of the item, not the item: ``n = len(item)``.
_NUMBER_CALLS = frozenset({"len", "int", "float", "bool", "str", "sum", "max", "min", "round"})


class _Body(OwnScopeVisitor):
    """The assignments of a loop's body (with nested blocks, not nested scopes), its calls, and
    whether it awaits or yields."""

    def __init__(self) -> None:
        self.assignments: list[tuple[set[str], cst.BaseExpression]] = []
        self.calls: list[cst.Call] = []
        self.suspends = False

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        names: set[str] = set()
        for target in node.targets:
            names |= target_names(target.target)
        self.assignments.append((names, node.value))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.assignments.append((target_names(node.target), node.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.assignments.append((target_names(node.target), node.value))

    def visit_Await(self, node: cst.Await) -> None:
        self.suspends = True

    def visit_Yield(self, node: cst.Yield) -> None:
        self.suspends = True


def _number_of(value: cst.BaseExpression) -> bool:
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value in _NUMBER_CALLS
    )


def _converts(value: cst.BaseExpression, names: set[str], provenance: Provenance) -> bool:
    """Whether ``value`` is a part of an item or what a module's function makes of one."""
    if not names_in(value) & names:
        return False
    calls = calls_in(value)
    if not calls:
        return True
    if not isinstance(value, cst.Call) or _number_of(value):
        return False
    func = value.func
    if isinstance(func, cst.Name):
        named = func.value
    elif provenance.qualify(func) is not None:  # ``F.to_tensor(img)``, ``np.asarray(a)``
        named = func.attr.value if isinstance(func, cst.Attribute) else ""
    else:
        return False  # a method of the item or of an object (``req.load()``, ``self.enc(x)``)
    return not model_named(named) and all(
        _converts(arg.value, names, provenance) or not names_in(arg.value) & names
        for arg in value.args
    )


def item_names(node: cst.For, body: _Body, provenance: Provenance) -> set[str]:
    """The loop's names and those the body binds from them, transitively."""
    names = target_names(node.target)
    changed = True
    while changed:
        changed = False
        for bound, value in body.assignments:
            if bound - names and _converts(value, names, provenance):
                names |= bound
                changed = True
    return names


def _appended(small: cst.BaseSmallStatement) -> tuple[str, cst.BaseExpression] | None:
    """``out.append(v)`` of a list named ``out``: the name and ``v``."""
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return None
    call = small.value
    if called_method(call) not in STORE_METHODS or len(call.args) != 1:
        return None
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return None
    return func.value.value, call.args[0].value


def _mentions(body: cst.BaseSuite, name: str) -> int:
    """How often the body names ``name``, bindings included."""
    return sum(1 for read in names_read(body) if read.value == name)


def collecting_for(node: cst.For, provenance: Provenance, frame: Frame) -> GatheringLoop | None:
    """The collecting loop ``node`` is (see the module's docstring), or None."""
    if node.orelse is not None or node.asynchronous is not None:
        return None
    if not isinstance(node.body, cst.IndentedBlock) or runs_model(node):
        return None
    body = _Body()
    visit_read_only(node.body, body)
    if body.suspends:
        return None
    names = item_names(node, body, provenance)
    bound = set().union(*(b for b, _ in body.assignments)) if body.assignments else set()
    indices = index_names(node.target, node.iter)
    temporaries: dict[str, Transfer] = {}
    for line in node.body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                moved = item_transfer(small.value, names, provenance, frame, indices, True)
                if moved is not None:
                    temporaries[small.targets[0].target.value] = moved
                continue
            appended = _appended(small)
            if appended is None or appended[0] in bound or appended[0] in names:
                continue
            value = appended[1]
            if isinstance(value, cst.Name) and value.value in temporaries:
                if _mentions(node.body, value.value) != 2:
                    continue  # the moved value is used in the iteration too
                transfer: Transfer | None = temporaries[value.value]
            else:
                transfer = item_transfer(value, names, provenance, frame, indices, True)
            if transfer is None or _excluded(node, transfer, names, provenance, frame):
                continue
            if any(
                _on_device(call, provenance, frame)
                for call in body.calls
                if call is not transfer.call and call is not value
            ):
                return None  # device work per item, or a value moved before
            return GatheringLoop(node, transfer, node.iter)
    return None


def _on_device(call: cst.Call, provenance: Provenance, frame: Frame) -> bool:
    """A copy to the device (``.to(device)``, ``.cuda()``) or an allocation there."""
    method = called_method(call)
    if method == "cuda":
        return True
    if method == "to" and provenance.to_target(call, frame) is Target.DEVICE:
        return True
    device = keyword(call, "device")
    return (
        device is not None
        and method != "to"
        and provenance.device_target(device.value, frame, allocation=True) is Target.DEVICE
    )


def _excluded(
    node: cst.For, transfer: Transfer, names: set[str], provenance: Provenance, frame: Frame
) -> bool:
    return (
        item_excluded(transfer.moved, node, names, provenance, frame)
        or into_items_device(transfer.call, node.iter, provenance, frame)
        or iterable_excluded(node.iter, names, provenance, frame)
    )

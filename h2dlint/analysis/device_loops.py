"""Loops whose every iteration runs device work (a model call, an optimizer step, device
tensors), with the data they use: a sync in such a loop runs once per iteration. Split out of
``hot_paths.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.backward_calls import backward_helper, backward_loss
from h2dlint.analysis.backward_methods import backward_argument
from h2dlint.analysis.device_recurrences import carried_tensors
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.names import target_names
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.sync_basics import LoopBodyVisitor
from h2dlint.analysis.targets import Target, name_words, to_target
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    pass

# -- loops whose every iteration runs device work -------------------------------------------------

# ``<x>.step()`` of these is an optimizer step (a scheduler's ``step()`` alone is host work).
OPTIMIZER_WORDS = ("optim", "scaler")


class _DeviceWork(LoopBodyVisitor):
    """The device work a loop body does on every iteration. *Global* work makes any read in
    the iteration wait for it: a backward pass, an optimizer step, a CUDA graph replay. A copy
    to the device (``x.to(device)``, ``x.cuda()``) only makes a read wait when the read
    depends on it, so copies are kept with the names the body binds to values computed from
    them. Nested functions, classes and lambdas are not the body's; a branch taken once every
    N iterations (``if step % 100 == 0``) is not every iteration's."""

    def __init__(self, provenance: Provenance, frame: Frame, items: frozenset[str]) -> None:
        self.provenance = provenance
        self.frame = frame
        # The loop's own names: only copies of them (or of values computed from them) count.
        self.items = items
        self.global_work: str | None = None
        # Whether the global work found runs only in loops nested in the body.
        self.global_nested = False
        self._depth = 0
        self.copies: list[cst.Call] = []
        # name -> the values the body binds to it (simple ``name = value`` assignments).
        self.assigned: dict[str, list[cst.BaseExpression]] = {}
        self.backward_of: set[str] = set()

    def visit_If(self, node: cst.If) -> bool:
        return not self._every_n(node)

    def visit_For(self, node: cst.For) -> None:
        self._depth += 1

    def leave_For(self, original_node: cst.For) -> None:
        self._depth -= 1

    def visit_While(self, node: cst.While) -> None:
        self._depth += 1

    def leave_While(self, original_node: cst.While) -> None:
        self._depth -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for name in target_names(target.target):
                self.assigned.setdefault(name, []).append(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.assigned.setdefault(node.target.value, []).append(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and backward_helper(func.value):
            self._global(node)  # ``backward_step(...)``: a pipeline schedule's backward
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        base = func.value
        base_name = base.attr.value if isinstance(base, cst.Attribute) else ""
        if isinstance(base, cst.Name):
            base_name = base.value
        optimizer = method == "step" and any(w in base_name.lower() for w in OPTIMIZER_WORDS)
        if backward_helper(method):
            self._global(node)  # ``self._backward_pass(loss)``
            if (loss := backward_loss(node)) is not None:
                self.backward_of.add(loss)
        elif method == "backward" or (method == "replay" and not node.args) or optimizer:
            self._global(node)
            if method == "backward" and isinstance(base, cst.Name):
                self.backward_of.add(base.value)
        elif (method == "cuda" and not node.args) or (
            method == "to" and to_target(self.provenance, node, self.frame) is Target.DEVICE
        ):
            self.copies.append(node)
        elif isinstance(base, cst.Name) and base.value == self.frame.self_name:
            self._self_helper(node, method)

    def _self_helper(self, node: cst.Call, method: str) -> None:
        """``self.optimizer_update(optimizer, loss)``: a method of the class or a base that
        runs a backward pass (:mod:`h2dlint.analysis.backward_methods`), the loss it is given."""
        cls = self.frame.cls
        if cls is None or not node.args:
            return
        position = backward_argument(self.provenance, cls, method)
        if position is None:
            return
        self._global(node)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        loss = positional[position] if 0 <= position < len(positional) else None
        if isinstance(loss, cst.Name):
            self.backward_of.add(loss.value)

    def _global(self, node: cst.Call) -> None:
        if self.global_work is None:
            self.global_work = f"`{self.provenance.context.module.code_for_node(node)}`"
            self.global_nested = self._depth > 0
        elif not self._depth:
            self.global_nested = False

    def copies_of_items(self) -> list[cst.Call]:
        """The copies of what the loop walks (its names, or names bound from them in the
        body): a batch, a chunk. A copy of other state (an adapter's weights) is no data the
        loop streams through the device."""
        from_items = set(self.items)
        changed = True
        while changed:
            changed = False
            for name, values in self.assigned.items():
                if name not in from_items and any(_data_names(v) & from_items for v in values):
                    from_items.add(name)
                    changed = True
        found = []
        for copy in self.copies:
            func = copy.func
            assert isinstance(func, cst.Attribute)
            if _data_names(func.value) & from_items:
                found.append(copy)
        return found


class _Uses(cst.CSTVisitor):
    """The names an expression reads, and the calls in it."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.calls: set[cst.Call] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit_read_only(node.value, self)
        return False

    def visit_Call(self, node: cst.Call) -> bool | None:
        self.calls.add(node)
        return None


def _uses(node: cst.CSTNode) -> _Uses:
    found = _Uses()
    visit_read_only(node, found)
    return found


class _DataUses(_Uses):
    """The names an expression computes with, not those it only looks values up by
    (``self.weights[name]`` uses ``self``, not ``name``) or passes to a method as options
    (``out.to(w.dtype)`` uses ``out``, not ``w``)."""

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        visit_read_only(node.value, self)
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        self.calls.add(node)
        if isinstance(node.func, cst.Attribute):
            visit_read_only(node.func.value, self)
            return False
        return True


def _data_names(node: cst.CSTNode) -> set[str]:
    found = _DataUses()
    visit_read_only(node, found)
    return found.names


@dataclass
class DeviceLoop:
    """What device work one loop's iterations run (see :class:`_DeviceWork`)."""

    global_work: str | None
    # Copies to the device of what the loop walks (a batch, a chunk).
    copies: list[cst.Call]
    # Names bound in the body to values computed from a device copy (or a backward's loss).
    tainted: frozenset[str]
    # Tensors the body carries from one iteration to the next (see ``device_recurrences``),
    # and the names it computes from them: name -> the carried value they come from.
    carried: dict[str, cst.BaseExpression] = field(default_factory=dict)
    # An epoch loop (``for epoch in range(n_epochs):``) whose global work runs only in the
    # loops nested in it (the batches): what its own body reads runs once per epoch.
    per_epoch: bool = False

    def reason_for(self, read: cst.BaseExpression, module: cst.Module) -> str | None:
        """Why a host read of ``read`` in the body waits for device work every iteration:
        global work (a backward pass, an optimizer step, a graph replay), or a device copy the
        value read is computed from. None when neither."""
        if self.global_work is not None and not self.per_epoch:
            return f"a loop whose every iteration runs device work ({self.global_work})"
        uses = _uses(read)
        copies = [c for c in self.copies if c in uses.calls]
        if not copies and uses.names & self.tainted:
            copies = self.copies
        if not copies:
            return self._carried_reason(uses.names, module)
        text = module.code_for_node(copies[0])
        shown = f"`{text}`" if len(text) <= 50 and "\n" not in text else "a device copy"
        return f"a loop whose every iteration computes on data it copies to the device ({shown})"

    def _carried_reason(self, names: set[str], module: cst.Module) -> str | None:
        for name in sorted(names & self.carried.keys()):
            text = module.code_for_node(self.carried[name])
            shown = f" (`{text}`)" if len(text) <= 50 and "\n" not in text else ""
            return (
                "a loop whose every iteration computes a tensor on the device from the one "
                f"the iteration before computed{shown}"
            )
        return None


def device_loop(provenance: Provenance, loop: cst.For | cst.While, frame: Frame) -> DeviceLoop:
    """The device work of ``loop``'s body: each iteration is then a step, and a host sync in
    the body that waits for the work stalls every iteration (a training loop's
    ``loss.item()`` after ``loss.backward()``; a chunked loss read after ``.to(device)``)."""
    items = frozenset(target_names(loop.target)) if isinstance(loop, cst.For) else frozenset()
    finder = _DeviceWork(provenance, frame, items)
    visit_read_only(loop.body, finder)
    tainted = set(finder.backward_of)
    item_copies = finder.copies_of_items()
    copies = set(item_copies)
    changed = True
    while changed:
        changed = False
        for name, values in finder.assigned.items():
            if name in tainted:
                continue
            for value in values:
                uses = _uses(value)
                if uses.calls & copies or uses.names & tainted:
                    tainted.add(name)
                    changed = True
                    break
    return DeviceLoop(
        finder.global_work,
        item_copies,
        frozenset(tainted),
        _from_carried(carried_tensors(provenance, loop, frame), finder.assigned),
        finder.global_nested and epoch_loop(loop, provenance, frame),
    )


# Words of a loop variable that counts epochs (``epoch``, ``epoch_idx``, ``n_epoch``).
EPOCH_WORDS = frozenset({"epoch", "epochs"})


def epoch_loop(
    loop: cst.For | cst.While, provenance: Provenance | None = None, frame: Frame | None = None
) -> bool:
    """Whether ``loop`` walks epochs: its variable is named for them (``for epoch in
    range(self.epochs):``), or it counts up to a number of epochs (``for _ in
    range(self.num_epochs):``, ``for _ in pbar:`` of ``pbar = trange(self.num_epochs)``: cornac
    3.0.1's LightGCN and NGCF, session 50). Its body around the loop over batches runs once per
    epoch: an epoch's loss summed across ranks and read once (session 24, TabPFN's fine-tuning
    loop), the whole embedding tables copied for scoring, is no per-step sync, though a backward
    pass runs in every epoch."""
    if not isinstance(loop, cst.For):
        return False
    if any(EPOCH_WORDS & name_words(name) for name in target_names(loop.target)):
        return True
    iterable = loop.iter
    if isinstance(iterable, cst.Name) and provenance is not None and frame is not None:
        values = provenance.bindings(frame).reaching(iterable)
        if len(values) != 1 or values[0] is None:
            return False
        iterable = values[0]
    return _counts_epochs(iterable)


# Calls that count (``range(n)``) or pass a count on (``tqdm(range(n))``, ``enumerate(...)``).
_COUNTING = frozenset({"range", "trange"})
_WRAPPING = frozenset({"tqdm", "enumerate", "track"})


def _counts_epochs(iterable: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether ``iterable`` counts up to a number named for epochs (``range(self.num_epochs)``,
    ``trange(1, n_epochs + 1)``, ``tqdm(range(max_epochs))``); not an iterator named for one
    (``epoch_iterator`` yields an epoch's batches)."""
    if not isinstance(iterable, cst.Call) or depth > 2:
        return False
    func = iterable.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    if name in _WRAPPING and iterable.args:
        return _counts_epochs(iterable.args[0].value, depth + 1)
    if name not in _COUNTING:
        return False
    return any(
        EPOCH_WORDS & name_words(n)
        for arg in iterable.args
        if arg.keyword is None
        for n in _count_names(arg.value)
    )


def _count_names(node: cst.BaseExpression, depth: int = 0) -> list[str]:
    """The names and attribute names a count is computed from (``self.num_epochs + 1``:
    ``self``, ``num_epochs``)."""
    if depth > 6:
        return []
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.Attribute):
        return [node.attr.value, *_count_names(node.value, depth + 1)]
    if isinstance(node, cst.BinaryOperation):
        return [*_count_names(node.left, depth + 1), *_count_names(node.right, depth + 1)]
    if isinstance(node, cst.Call):
        return [n for arg in node.args for n in _count_names(arg.value, depth + 1)]
    if isinstance(node, cst.Subscript):
        return _count_names(node.value, depth + 1)
    return []


def _from_carried(
    carried: dict[str, cst.BaseExpression], assigned: dict[str, list[cst.BaseExpression]]
) -> dict[str, cst.BaseExpression]:
    """The carried names, and the names the body binds to values computed from them, each
    with the carried value it comes from."""
    found = dict(carried)
    changed = True
    while changed:
        changed = False
        for name, values in assigned.items():
            if name in found:
                continue
            for value in values:
                origin = sorted(_data_names(value) & found.keys())
                if origin:
                    found[name] = found[origin[0]]
                    changed = True
                    break
    return found

"""Loops and comprehensions whose only job is to move the items of a collection to a device, one
copy per item (HTD101).

A *transfer* is ``x.to(<device>)``, ``x.cuda()`` or ``dst.copy_(x)`` into device memory. A
*per-item transfer* moves an item of the loop: its tensor is the loop variable (or an element or
attribute of it, or a container indexed by it, or a host tensor made of it by ``torch.tensor``,
``as_tensor``, ``from_numpy``), possibly with trivial wrapping (``.float()``, ``.contiguous()``,
``.unsqueeze(0)``, ``.data``, ``.to(dtype)``). A loop or comprehension is a *gathering loop*
when all it does per iteration is such a transfer whose result is collected: the element of a
comprehension, or in a ``for`` body (or a ``while`` body taking ``x = queue.pop()``) only
statements that store the moved item (``out.append(...)``, ``xs[i] = ...``, ``batch[k] = ...``,
``item.attr = ...``, a ``copy_`` into a device buffer, or an element of one written with a
host tensor made of the item: ``buf[i, :k] = torch.tensor(item)``). A guard that only keeps
the items' tensors (``if isinstance(item.feature, torch.Tensor):`` without ``else``,
``if x is not None:``, ``if not isinstance(x, torch.Tensor): continue``) is seen through: it
filters, it does not dispatch. :func:`mover_parameters` says which parameters of a function
it moves that way.

Conservative by design (a false positive is as bad as a miss). Not gathering loops:

- loops that do anything else per iteration (model calls, arithmetic, I/O, branches);
- loops whose copy target depends on the loop variable (``x.to(devices[i])``: a multi-GPU
  scatter) or is the device of another tensor (``h.to(other.device)``: usually aligning tensors
  that already live on accelerators, not a host-to-device copy);
- loops over a literal tuple or list or ``range(<small literal>)``: the item count is tiny;
- loops over a model's parameters, buffers, modules or state dict, or over names that say so
  (``params``, ``layers``, ``model``...): one-time setup moves of things that cannot be batched;
- type-dispatching loops (``isinstance`` with an ``else`` or a test of another type, in the
  element, or around the loop): generic movers of mixed containers, which one batched copy
  cannot replace;
- a mapping's values (``d.items()``, ``d.values()``, ``for k in d: d[k]``, ``d[k]`` for ``k``
  of a list of its keys): named fields of different dtypes and shapes (rows of one other array
  indexed by them, ``bitmask[row]`` of the rows a mapping gives, are alike items and count);
- storage swaps (``p.data = ...``) and ``self``'s collection moved in place
  (``self.freqs = [f.to(d) for f in self.freqs]``): one-time relocations of state;
- copies to an offload device (the host, see ``targets.by_name``), and collections named as
  activations (``hidden_states``, ``latents``, ``logits``), which already live on an accelerator;
- ``copy_`` into the loop's own items (distinct existing tensors) and row segments of one
  buffer (``gpu[i, :n].copy_(cpu[i, :n])``, the fix for a strided copy);
- items proven on a device (or of a list made on one), pieces of one tensor not proven on
  the host (``x.split(1)``);
- few-byte values: ``torch.tensor(i)`` of a ``range`` index, ``torch.tensor([step])``, and
  per-tensor reductions (``norms = list(torch._foreach_norm(grads))``)."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from h2dlint.analysis.cuda_loops import cuda_loops
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.item_filters import skips_non_tensors, small_statements, tensor_filter
from h2dlint.analysis.loop_aliases import item_aliases, keeps_unmoved_items
from h2dlint.analysis.loop_iterables import into_items_device, item_excluded, iterable_excluded

# Re-exported: HTD101 imports them from here.
from h2dlint.analysis.loop_iterables import tiny_iterable as tiny_iterable
from h2dlint.analysis.loop_transfers import (
    STORE_METHODS,
    TAKING_METHODS,
    Transfer,
    called_method,
    index_names,
    item_transfer,
    item_write,
    mentions_isinstance,
    root_name,
    rows_of_one,
    strip_trivial,
)
from h2dlint.analysis.loop_transfers import Comprehension as Comprehension
from h2dlint.analysis.loop_transfers import GatheringLoop as GatheringLoop
from h2dlint.analysis.model_outputs import iterated_collection
from h2dlint.analysis.names import target_names
from h2dlint.analysis.offset_bookkeeping import host_items, offset_statement
from h2dlint.analysis.provenance import Provenance
from h2dlint.walk import OwnScopeVisitor, visit_read_only


# -- comprehensions ---------------------------------------------------------------------------
def _for_clauses(node: Comprehension) -> Iterator[cst.CompFor]:
    clause: cst.CompFor | None = node.for_in
    while clause is not None:
        yield clause
        clause = clause.inner_for_in


def gathering_comprehension(
    node: Comprehension, provenance: Provenance, frame: Frame
) -> GatheringLoop | None:
    """``[x.to(dev) for x in xs]``, ``{k: v.cuda() for k, v in d.items()}``: ``None`` unless the
    element is just a per-item copy to the device."""
    element = node.value if isinstance(node, cst.DictComp) else node.elt
    if not isinstance(element, cst.Call):
        return None  # cheap exit: the element is no call at all
    clauses = list(_for_clauses(node))
    loop_names: set[str] = set()
    indices: frozenset[str] = frozenset()
    for clause in clauses:
        loop_names |= target_names(clause.target)
        indices |= index_names(clause.target, clause.iter)
    for clause in clauses:
        if any(
            mentions_isinstance(condition.test)
            and not tensor_filter(condition.test, loop_names, provenance)
            for condition in clause.ifs
        ):
            return None  # a condition on type that is more than keeping the tensors
        if clause.asynchronous is not None:
            return None
    transfer = item_transfer(element, loop_names, provenance, frame, indices)
    if transfer is None:
        return None
    outer = clauses[0]
    if any(item_excluded(transfer.moved, c, loop_names, provenance, frame) for c in clauses):
        return None
    if any(iterable_excluded(c.iter, loop_names, provenance, frame) for c in clauses):
        return None
    return GatheringLoop(node, transfer, outer.iter)


# -- for loops --------------------------------------------------------------------------------
def _stored_value(small: cst.BaseSmallStatement) -> cst.BaseExpression | None:
    """What a statement puts into a container or an item: ``out.append(v)``, ``xs[i] = v``,
    ``item.attr = v``."""
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        if called_method(call) in STORE_METHODS and call.args:
            return call.args[-1].value
        return None
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, (cst.Subscript, cst.Attribute)):
            return small.value
    return None


def _swaps_storage(small: cst.BaseSmallStatement) -> bool:
    """``item.data = ...``: swapping a parameter's or buffer's storage, a state move."""
    return (
        isinstance(small, cst.Assign)
        and isinstance(small.targets[0].target, cst.Attribute)
        and small.targets[0].target.attr.value == "data"
    )


def moves_state_in_place(target: cst.BaseExpression, collection: cst.BaseExpression) -> bool:
    """``self.freqs = [f.to(device) for f in self.freqs]``: an object's stored tensors moved in
    place. After the first call they are on the device and the copies are no-ops; a one-time
    relocation of state, like moving a module."""
    return root_name(target) in ("self", "cls") and target.deep_equals(collection)


def loop_statements(
    body: cst.BaseSuite, loop_names: set[str], provenance: Provenance
) -> list[cst.BaseSmallStatement] | None:
    """The simple statements a loop runs per item; ``None`` when it holds a compound statement.
    A filter that keeps the items' tensors (:func:`tensor_filter`) is seen through: an ``if``
    filter without ``else`` stands for its body (``if isinstance(item.a, torch.Tensor): item.a
    = item.a.to(dev)``, one such per field), and a leading ``if not isinstance(item,
    torch.Tensor): continue`` is dropped."""
    statements = small_statements(body)
    if statements is not None or not isinstance(body, cst.IndentedBlock):
        return statements
    members = list(body.body)
    if members and skips_non_tensors(members[0], loop_names, provenance):
        members = members[1:]
    out: list[cst.BaseSmallStatement] = []
    for member in members:
        if isinstance(member, cst.SimpleStatementLine):
            out.extend(member.body)
            continue
        if not (
            isinstance(member, cst.If)
            and member.orelse is None
            and tensor_filter(member.test, loop_names, provenance)
        ):
            return None
        filtered = small_statements(member.body)
        if filtered is None:
            return None
        out.extend(filtered)
    return out


def _gathering_transfers(
    statements: list[cst.BaseSmallStatement],
    loop_names: set[str],
    provenance: Provenance,
    frame: Frame,
    indices: frozenset[str] = frozenset(),
    control: frozenset[cst.BaseSmallStatement] = frozenset(),
    rebound: frozenset[str] = frozenset(),
) -> list[Transfer] | None:
    """The per-item transfers of a loop body that only copies items to the device and stores
    them (``control``: statements that drive a ``while`` loop, taken as they are; ``rebound``:
    aliases that may be rebound to their own transfer), or None."""
    temporaries: dict[str, Transfer] = {}
    stored: set[str] = set()
    transfers: list[Transfer] = []
    for small in statements:
        if small in control:
            continue
        if isinstance(small, cst.Pass) or (
            isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)
        ):
            continue
        if isinstance(small, cst.Expr) and called_method(small.value) == "copy_":
            transfer = item_transfer(small.value, loop_names, provenance, frame, indices)
            if transfer is None:
                return None
            transfers.append(transfer)
            continue
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            # ``y = x.to(dev)``, stored by a later statement
            name = small.targets[0].target.value
            transfer = item_transfer(small.value, loop_names, provenance, frame, indices)
            if transfer is None or (name in loop_names and name not in rebound):
                return None
            temporaries[name] = transfer
            continue
        write = item_write(small, loop_names, provenance, frame, indices)
        if write is not None:
            transfers.append(write)
            continue
        value = _stored_value(small)
        if value is None or _swaps_storage(small):
            return None
        value = strip_trivial(value, provenance, frame)
        if isinstance(value, cst.Name) and value.value in temporaries:
            stored.add(value.value)
            transfers.append(temporaries[value.value])
            continue
        transfer = item_transfer(value, loop_names, provenance, frame, indices)
        if transfer is None:
            return None
        if isinstance(small, cst.Assign) and moves_state_in_place(
            small.targets[0].target, transfer.moved
        ):
            return None
        transfers.append(transfer)
    if not transfers or set(temporaries) - stored:
        return None
    return transfers


def gathering_for(node: cst.For, provenance: Provenance, frame: Frame) -> GatheringLoop | None:
    """A ``for`` loop whose body only copies items to the device and stores them."""
    if node.orelse is not None or node.asynchronous is not None:
        return None
    aliases = item_aliases(node.body, target_names(node.target))
    if keeps_unmoved_items(node.body, set(aliases.values)):
        return None  # non-tensor items stored as they are: a mixed container's mover
    loop_names = target_names(node.target) | set(aliases.values)
    statements = loop_statements(node.body, loop_names, provenance)
    if not statements or not (statements := [s for s in statements if s not in aliases.statements]):
        return None
    indices = index_names(node.target, node.iter)
    offsets = frozenset(s for s in statements if offset_statement(s, loop_names))
    transfers = _gathering_transfers(
        statements,
        loop_names,
        provenance,
        frame,
        indices,
        control=offsets,
        rebound=frozenset(aliases.values),
    )
    if transfers is None:
        return None
    transfers = [aliases.resolved(t) for t in transfers]
    if offsets and not host_items(transfers, node.iter, loop_names, provenance, frame):
        return None  # a flat bucket packed from device tensors looks the same
    if any(
        item_excluded(t.moved, node, loop_names, provenance, frame)
        or into_items_device(t.call, node.iter, provenance, frame)
        for t in transfers
    ):
        return None
    rows = all(rows_of_one(t, loop_names, provenance) for t in transfers)
    if iterable_excluded(node.iter, loop_names, provenance, frame, mapping_ok=rows):
        return None
    return GatheringLoop(node, transfers[0], node.iter)


def _taken(small: cst.BaseSmallStatement) -> tuple[str, cst.BaseExpression] | None:
    """``item = queue.pop()`` (``popleft``, ``get``; ``next(it)``): the name and the
    collection an item is taken from."""
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.Call)
    ):
        return None
    call = small.value
    name = small.targets[0].target.value
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in TAKING_METHODS:
        return name, call.func.value
    if isinstance(call.func, cst.Name) and call.func.value == "next" and call.args:
        return name, call.args[0].value
    return None


def gathering_while(node: cst.While, provenance: Provenance, frame: Frame) -> GatheringLoop | None:
    """A ``while`` loop whose body takes items one at a time off a collection
    (``x = queue.pop()``, ``popleft``, ``get``, ``next(it)``), copies each to the device and
    stores it. (A counter indexing ``xs[i]`` is not recognised: the candidate filter, which
    knows ``for`` variables and names bound to calls, could not see it.)"""
    if node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    statements = small_statements(node.body)
    if not statements:
        return None
    taken = {t[0]: t[1] for t in map(_taken, statements) if t is not None}
    if len(taken) != 1:
        return None
    control = frozenset(s for s in statements if _taken(s) is not None)
    loop_names = set(taken)
    transfers = _gathering_transfers(statements, loop_names, provenance, frame, control=control)
    if transfers is None:
        return None
    (iterable,) = taken.values()
    if iterable_excluded(iterable, loop_names, provenance, frame):
        return None
    return GatheringLoop(node, transfers[0], iterable)


def _collected(node: cst.BaseExpression) -> cst.BaseExpression:
    """What ``list``/``tuple``/``dict``/``set`` of one argument collects (a comprehension, a
    ``map``), else ``node`` itself."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value in ("list", "tuple", "dict", "set")
        and len(node.args) == 1
        and not node.args[0].star
    ):
        return node.args[0].value
    return node


def mapped_comprehension(call: cst.Call) -> cst.GeneratorExp | None:
    """``map(lambda t: t.to(dev), items)`` as the generator it is, ``(t.to(dev) for t in
    items)`` (a node made here: its parts are the call's own, so facts and positions of them
    hold); None for any other call (a named function mapped, several iterables)."""
    if not (isinstance(call.func, cst.Name) and call.func.value == "map" and len(call.args) == 2):
        return None
    function, iterable = call.args
    if function.keyword is not None or iterable.keyword is not None or iterable.star:
        return None
    lam = function.value
    if not isinstance(lam, cst.Lambda):
        return None
    params = lam.params
    if (
        len(params.params) != 1
        or params.posonly_params
        or params.kwonly_params
        or not isinstance(params.star_arg, cst.MaybeSentinel)
        or params.star_kwarg is not None
    ):
        return None
    name = params.params[0].name
    return cst.GeneratorExp(elt=lam.body, for_in=cst.CompFor(target=name, iter=iterable.value))


def under_type_dispatch(ancestors: list[cst.CSTNode]) -> bool:
    """Whether a branch on a value's type (``isinstance``) encloses the innermost node of
    ``ancestors`` in its function: a generic mover of mixed containers."""
    for node in reversed(ancestors):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(node, (cst.If, cst.IfExp, cst.While)) and mentions_isinstance(node.test):
            return True
    return False


def assignment_of(ancestors: list[cst.CSTNode], node: cst.CSTNode) -> cst.Assign | None:
    """The assignment whose value is the comprehension or ``map`` call ``node`` (or
    ``list(...)`` of it)."""
    for parent in reversed(ancestors):
        if isinstance(parent, cst.Assign):
            value = parent.value
            return parent if value is node or _collected(value) is node else None
        if isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
            return None
    return None


def assigned_in_place(
    ancestors: list[cst.CSTNode], node: cst.CSTNode, collection: cst.BaseExpression
) -> bool:
    """Whether ``node`` (a comprehension) is the value of an assignment that stores it back
    into ``self``'s collection it iterates (see :func:`moves_state_in_place`)."""
    assign = assignment_of(ancestors, node)
    targets = assign.targets if assign is not None else ()
    return any(moves_state_in_place(t.target, collection) for t in targets)


# -- helpers that move the items of a parameter -------------------------------------------------
class _GatheringLoops(OwnScopeVisitor):
    """The gathering loops of one function (not of nested functions, classes or lambdas, and
    not under a dispatch on type)."""

    def __init__(self, root: cst.FunctionDef, provenance: Provenance, frame: Frame) -> None:
        self.root = root
        self.provenance = provenance
        self.frame = frame
        self.dispatch = 0
        self.found: list[GatheringLoop] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def _add(self, found: GatheringLoop | None) -> None:
        if found is not None:
            self.found.append(found)

    def visit_For(self, node: cst.For) -> None:
        if not self.dispatch:
            self._add(gathering_for(node, self.provenance, self.frame))

    def visit_While(self, node: cst.While) -> None:
        if not self.dispatch:
            self._add(gathering_while(node, self.provenance, self.frame))
        self.visit_If(node)  # its test may dispatch on type too

    def visit_comprehension(
        self, node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp
    ) -> None:
        if not self.dispatch:
            self._add(gathering_comprehension(node, self.provenance, self.frame))

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_comprehension

    # A dispatch on type (``if isinstance(x, Tensor):``): the loops under it are left alone.
    def visit_If(self, node: cst.If | cst.IfExp | cst.While) -> None:
        if mentions_isinstance(node.test):
            self.dispatch += 1

    def leave_If(self, original_node: cst.If | cst.IfExp | cst.While) -> None:
        if mentions_isinstance(original_node.test):
            self.dispatch -= 1

    visit_IfExp = visit_If
    leave_IfExp = leave_While = leave_If


def parameter_names(function: cst.FunctionDef) -> list[str]:
    """The names of ``function``'s parameters, in order (``*args`` and ``**kwargs`` aside)."""
    params = function.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


def mover_loops(
    function: cst.FunctionDef, provenance: Provenance, frame: Frame
) -> dict[str, GatheringLoop]:
    """The parameters of ``function`` whose items it copies to the device one per item, each
    with the loop doing it: ``def move_items(items, device): for item in items: ...`` moves
    the items of ``items``. A call of such a function in a loop or on a hot path makes those
    copies every time (see :func:`mover_parameters`)."""
    names = set(parameter_names(function)) - {frame.self_name or "self", "cls"}
    finder = _GatheringLoops(function, provenance, frame)
    visit_read_only(function, finder)
    loops: dict[str, GatheringLoop] = {}
    for loop in cuda_loops(function, finder.found, provenance, frame):
        root = root_name(iterated_collection(loop.iterable))
        if root is not None and root in names:
            loops.setdefault(root, loop)
    return loops


def mover_parameters(function: cst.FunctionDef, provenance: Provenance, frame: Frame) -> set[str]:
    """The parameters whose items ``function`` moves to the device one copy per item, for a
    project index to record (a helper imported from another module is a mover all the same)."""
    return set(mover_loops(function, provenance, frame))


def passed_parameters(function: cst.FunctionDef, call: cst.Call, method: bool) -> set[str]:
    """The parameters of ``function`` that ``call`` passes an argument for (all of them when it
    unpacks ``*args`` or ``**kwargs``); ``method``: the call is bound, so the first parameter is
    the instance."""
    params = function.params
    ordered = [p.name.value for p in (*params.posonly_params, *params.params)]
    if method and ordered:
        ordered = ordered[1:]
    if any(arg.star for arg in call.args):
        return set(parameter_names(function))
    passed = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    positional = [arg for arg in call.args if arg.keyword is None]
    passed.update(ordered[: len(positional)])
    return passed

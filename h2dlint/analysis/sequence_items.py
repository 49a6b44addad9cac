"""The items of a parameter annotated as a sequence of tensors, read one by one (HTD201,
session 45): ``grads: List[torch.Tensor]`` walked ``for g_j in grads:`` with ``if
torch.dot(g_i, g_j) < 0:`` (pytorch-optimizer's PCGrad), ``losses: Sequence[torch.Tensor]``
read ``losses[i] / w[i]`` then ``.item()`` per task in ``for i in range(len(losses))``
(RotoGrad). Each item is a tensor by the declaration, and each read waits for it.

Session 44 tried the same (rows44) and reverted it: a ``zip`` of per-batch lists in a training
loop (amd-quark's blockwise tuning, ``loss = loss_func(fp_targets, ...)`` then
``loss.item()``) became HTD201's, and HTD202's deferral dropped the ``.cpu()`` beside it. So
only (:func:`declared_item_read`): the loop's own walk of the parameter (``for x in p``,
``enumerate(p)``, ``range(len(p))``; not one of ``zip``'s arguments), and a read of the item
itself or of a value the body computes from items by tensor operations (a ``torch`` function,
a tensor method, arithmetic, an index), never through a call of an unknown function, whose
result may be anything. A whole item copied to the host (``x.cpu()``) is offloading, as
before."""

from __future__ import annotations

from collections.abc import Set

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.names import names_read
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.sync_basics import RowLoop, RowSync, Walk
from h2dlint.analysis.tensor_kinds import tensor_sequence_parameter
from h2dlint.imports import statements
from h2dlint.walk import visit_read_only


def declared_item_read(
    provenance: Provenance,
    node: cst.CSTNode,
    loop: RowLoop,
    sync: RowSync,
    parts: list[cst.CSTNode],
    frame: Frame,
) -> bool:
    """Whether ``sync`` in ``node`` (a ``for`` loop or a comprehension, its body ``parts``)
    reads an item of a parameter annotated as a sequence of tensors that the loop walks itself,
    through tensor operations only."""
    tensor = sync.tensor
    if not isinstance(tensor, cst.Name) or loop.walk not in (Walk.ROWS, Walk.INDEX):
        return False
    walked = _walked(node, loop)
    if walked is None or walked != tensor.value:
        return False
    if not tensor_sequence_parameter(provenance, tensor, frame):
        return False
    values = _bindings(parts)
    return _by_tensor_ops(provenance, sync.call, loop, values, set())


def _walked(node: cst.CSTNode, loop: RowLoop) -> str | None:
    """The name the loop walks itself: ``p`` of ``for x in p``, ``for i, x in enumerate(p)``
    and (an index walk) ``for i in range(len(p))``."""
    iterable: cst.BaseExpression | None
    if isinstance(node, cst.For):
        iterable = node.iter
    elif isinstance(node, (cst.BaseComp, cst.DictComp)):
        iterable = node.for_in.iter
    else:
        return None
    if loop.walk is Walk.INDEX:
        iterable = _only_argument(iterable, "range")
        iterable = None if iterable is None else _only_argument(iterable, "len")
    else:
        iterable = _only_argument(iterable, "enumerate") or iterable
    return iterable.value if isinstance(iterable, cst.Name) else None


def _only_argument(node: cst.BaseExpression, func: str) -> cst.BaseExpression | None:
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == func
        and len(node.args) == 1
        and node.args[0].keyword is None
        and not node.args[0].star
    ):
        return node.args[0].value
    return None


def _bindings(parts: list[cst.CSTNode]) -> dict[str, list[cst.BaseExpression]]:
    """The values the body binds to each plain name (``d = ...``, ``d: T = ...``)."""
    found: dict[str, list[cst.BaseExpression]] = {}
    for part in parts:
        for small in statements(part, into_definitions=False):
            if isinstance(small, cst.AnnAssign) and small.value is not None:
                pairs = [(small.target, small.value)]
            elif isinstance(small, cst.Assign):
                pairs = [(t.target, small.value) for t in small.targets]
            else:
                continue
            for target, value in pairs:
                if isinstance(target, cst.Name):
                    found.setdefault(target.value, []).append(value)
    return found


def _by_tensor_ops(
    provenance: Provenance,
    node: cst.CSTNode,
    loop: RowLoop,
    values: dict[str, list[cst.BaseExpression]],
    seen: set[str],
) -> bool:
    """Whether every call in ``node`` is a tensor operation, and every name it reads that the
    body binds is bound only to tensor operations of the rows (followed through the
    bindings)."""
    local = loop.names | values.keys()
    if any(not _tensor_call(provenance, call, local) for call in _calls(node)):
        return False
    for name in names_read(node):
        if name.value in loop.names or name.value in seen or name.value not in values:
            continue
        seen.add(name.value)
        if not all(_by_tensor_ops(provenance, v, loop, values, seen) for v in values[name.value]):
            return False
    return True


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    finder = _Calls()
    visit_read_only(node, finder)
    return finder.found


# Builtins that read a tensor (the syncs themselves) or convert it.
_READING_BUILTINS = frozenset({"int", "float", "bool", "len", "abs"})


def _tensor_call(provenance: Provenance, call: cst.Call, local: Set[str]) -> bool:
    """A ``torch`` function (``torch.dot(a, b)``, ``F.mse_loss(a, b)``), a method of a row or of
    a value the body computes (``g.norm()``, ``loss.item()``) or a builtin that reads one; not
    a call of a plain, project or object's function (``loss_func(out, target)``,
    ``scorer.score(g)``), whose result may be anything."""
    func = call.func
    if isinstance(func, cst.Name):
        return func.value in _READING_BUILTINS
    if not isinstance(func, cst.Attribute):
        return False
    if (provenance.qualify(func) or "").split(".")[0] == "torch":
        return True
    root: cst.BaseExpression = func.value
    while isinstance(root, (cst.Attribute, cst.Subscript, cst.Call)):
        root = root.func if isinstance(root, cst.Call) else root.value
    return isinstance(root, cst.Name) and root.value in local

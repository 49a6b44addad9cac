"""Calls of a one-item mover: a helper whose body is one ``return`` of its argument moved to
the device (``def stage(t, device): return t.to(device, non_blocking=True)``), defined in the
module or imported from another one (``from pkg.utils import stage``, ``import pkg.utils as u``,
a method of an object stored on ``self``). In a loop over items, ``out.append(stage(x, dev))``
copies each item on its own just as ``out.append(x.to(dev))`` does; the per-item loop analysis
(``loop_transfers.item_transfer``) asks :func:`moved_argument` for the item such a call moves.
A collection mover counts too: a helper whose first branch to return is ``if isinstance(o,
torch.Tensor): return o.to(device, ...)`` (its other branches recurse into dicts and lists,
``move_to_device(o, device)``). HTD301 asks :func:`mover_call` for the argument moved and the
device it goes to (``move_to_device(torch.zeros(n), x.device)``: a host factory moved).
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, is_true, keyword
from h2dlint.analysis.copies import non_blocking_to_unnamed_device
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.imports import statements

# Calls that only reshape or convert the argument on its way to the device.
_PASSING = frozenset({"contiguous", "detach", "float", "half", "bfloat16", "long", "int"})


def _name_of(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _may_be_item_mover(provenance: Provenance, func: cst.Name | cst.Attribute) -> bool:
    """Cheap gate before resolving the call (which may parse another module with libcst)."""
    name = _name_of(func)
    if name is None or name in ("to", "cuda", "copy_"):
        return False
    if name in provenance.index.functions or any(
        name in methods for methods in provenance.index.methods.values()
    ):
        return True
    project = provenance.project
    return project is not None and project.may_define_item_mover(name)


def _moved_parameter(owner: Provenance, function: cst.FunctionDef) -> str | None:
    """The parameter ``function`` returns moved to a device, when its body (a docstring
    aside) is only that ``return``, or when it opens with a tensor branch that is
    (:func:`_tensor_branch_if`)."""
    body = _body(function)
    call = _returned_call(body)
    if call is None:
        return None
    tested = _tensor_branch(body)
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value not in ("to", "cuda"):
        return None
    frame = owner.index.frame_of(function)
    if call.func.attr.value == "to" and owner.to_target(call, frame) is not Target.DEVICE:
        non_blocking = keyword(call, "non_blocking")
        if not (
            non_blocking is not None
            and is_true(non_blocking.value)
            and non_blocking_to_unnamed_device(owner, call, frame)
        ):
            return None
    if _aligns_to_tensor(call):
        return None  # ``t.to(other.device)``: aligned with another tensor, as in the loop form
    moved = call.func.value
    while (
        isinstance(moved, cst.Call)
        and isinstance(moved.func, cst.Attribute)
        and moved.func.attr.value in _PASSING
        and not moved.args
    ):
        moved = moved.func.value
    if not isinstance(moved, cst.Name) or moved.value in (frame.self_name, "cls"):
        return None
    if tested is not None and tested != moved.value:
        return None  # the branch tests another parameter than the one it moves
    params = function.params
    names = [p.name.value for p in (*params.posonly_params, *params.params)]
    return moved.value if moved.value in names else None


def _body(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    """A function's statements, its docstring aside."""
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    if (
        body
        and isinstance(body[0], cst.SimpleStatementLine)
        and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        body = body[1:]
    return body


def _returned_call(body: list[cst.BaseStatement]) -> cst.Call | None:
    """The call a mover's body returns: its one ``return``, or the ``return`` of the tensor
    branch of a collection mover (:func:`_tensor_branch`)."""
    branch = _tensor_branch_if(body)
    if branch is not None:
        body = list(branch.body.body) if isinstance(branch.body, cst.IndentedBlock) else []
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
        return None
    statement = body[0].body[0] if len(body[0].body) == 1 else None
    if not isinstance(statement, cst.Return) or not isinstance(statement.value, cst.Call):
        return None
    return statement.value


def _tensor_branch_if(body: list[cst.BaseStatement]) -> cst.If | None:
    """The ``if isinstance(o, torch.Tensor):`` (or ``torch.is_tensor(o)``) that opens a
    collection mover (``move_to_device(o, device)``: a tensor is moved, a dict, list or tuple
    moved item by item), when only statements without a ``return`` come before it."""
    if len(body) == 1:
        return None
    for statement in body:
        if isinstance(statement, cst.If) and _tensor_branch_name(statement) is not None:
            return statement
        if any(isinstance(s, cst.Return) for s in statements(statement, into_definitions=False)):
            return None
    return None


def _tensor_branch(body: list[cst.BaseStatement]) -> str | None:
    """The name a collection mover's tensor branch tests (None for a one-``return`` mover)."""
    branch = _tensor_branch_if(body)
    return _tensor_branch_name(branch) if branch is not None else None


def _tensor_branch_name(statement: cst.If) -> str | None:
    test = statement.test
    if not isinstance(test, cst.Call) or not isinstance(test.func, (cst.Name, cst.Attribute)):
        return None
    name = _name_of(test.func)
    args = [a.value for a in test.args]
    tests_tensor = (name == "is_tensor" and len(args) == 1) or (
        name == "isinstance" and len(args) == 2 and _name_of(args[1]) == "Tensor"
    )
    if not tests_tensor or not isinstance(args[0], cst.Name):
        return None
    return args[0].value


def _aligns_to_tensor(call: cst.Call) -> bool:
    """``t.to(device=other.device)``: the device of another tensor (not ``self.device``), which
    in model code is where the data already is or must be aligned with; the loop form
    (``[p.to(x.device) for p in ps]``) is left alone for the same reason."""
    device = keyword(call, "device")
    value = device.value if device is not None else first_positional(call)
    if not (isinstance(value, cst.Attribute) and value.attr.value == "device"):
        return False
    return not (isinstance(value.value, cst.Name) and value.value.value in ("self", "cls"))


def _argument_for(
    function: cst.FunctionDef, call: cst.Call, parameter: str, bound: bool
) -> cst.BaseExpression | None:
    """What ``call`` passes for ``parameter`` of ``function`` (None when unpacked or absent)."""
    if any(arg.star for arg in call.args):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == parameter:
            return arg.value
    params = function.params
    ordered = [p.name.value for p in (*params.posonly_params, *params.params)]
    if bound and ordered:
        ordered = ordered[1:]
    positional = [arg.value for arg in call.args if arg.keyword is None]
    at = ordered.index(parameter) if parameter in ordered else len(positional)
    return positional[at] if at < len(positional) else None


def moved_argument(
    node: cst.Call, provenance: Provenance, frame: Frame
) -> cst.BaseExpression | None:
    """The argument that ``node``, a call of a one-item mover of the project, copies to the
    device; None for any other call (or one that cannot be resolved)."""
    found = _resolved_mover(node, provenance, frame)
    if found is None:
        return None
    function, parameter, bound = found
    return _argument_for(function, node, parameter, bound)


def mover_call(
    node: cst.Call, provenance: Provenance, frame: Frame
) -> tuple[cst.BaseExpression, cst.BaseExpression | None] | None:
    """For ``node``, a call of a mover of the project (``move_to_device(x, dev)``): the
    argument it copies to the device, and the device as the caller can read it: what the call
    passes for the mover's device parameter, ``"cuda"`` for ``.cuda()``, a device the mover
    writes as a string, or the mover's ``self.device`` when the caller calls it on its own
    ``self`` (``self._stage(x)``); None for a device the caller cannot name. None for any
    other call."""
    found = _resolved_mover(node, provenance, frame)
    if found is None:
        return None
    function, parameter, bound = found
    moved = _argument_for(function, node, parameter, bound)
    if moved is None:
        return None
    call = _returned_call(_body(function))
    if call is None or not isinstance(call.func, cst.Attribute):
        return moved, None
    if call.func.attr.value == "cuda":
        return moved, cst.SimpleString('"cuda"') if not call.args else None
    named = keyword(call, "device")
    value = named.value if named is not None else first_positional(call)
    if isinstance(value, cst.Name) and value.value != parameter:
        return moved, _argument_for(function, node, value.value, bound)
    if isinstance(value, cst.SimpleString):
        return moved, value
    if _own_attribute(value, function, node, frame):
        return moved, value
    return moved, None


def _own_attribute(
    value: cst.BaseExpression | None, function: cst.FunctionDef, node: cst.Call, frame: Frame
) -> bool:
    """Whether ``value`` is ``self.x`` of the mover and the caller calls the mover on its own
    ``self`` under the same name, so that ``self.x`` means the same object in both."""
    if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name)):
        return False
    params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    func = node.func
    return (
        bool(params)
        and value.value.value == params[0]
        and frame.self_name == params[0]
        and isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == params[0]
    )


def _resolved_mover(
    node: cst.Call, provenance: Provenance, frame: Frame
) -> tuple[cst.FunctionDef, str, bool] | None:
    """The mover ``node`` calls, the parameter it moves and whether the call is bound."""
    func = node.func
    if not isinstance(func, (cst.Name, cst.Attribute)) or not node.args:
        return None
    if not _may_be_item_mover(provenance, func):
        return None
    found = provenance.callee(node, frame)
    if found is None:
        return None
    owner, function = found
    # ``module.helper(...)`` passes no instance; ``self.m(...)`` or ``obj.m(...)`` does.
    bound = isinstance(func, cst.Attribute) and provenance.qualify(func) is None
    if bound and owner.index.owner.get(function) is None:
        return None
    if not bound and owner.index.owner.get(function) is not None:
        return None  # a method called through its class: the instance is an argument
    parameter = _moved_parameter(owner, function)
    return (function, parameter, bound) if parameter is not None else None

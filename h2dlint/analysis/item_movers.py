"""Calls of a one-item mover: a helper whose body is one ``return`` of its argument moved to
the device (``def stage(t, device): return t.to(device, non_blocking=True)``), defined in the
module or imported from another one (``from pkg.utils import stage``, ``import pkg.utils as u``,
a method of an object stored on ``self``). In a loop over items, ``out.append(stage(x, dev))``
copies each item on its own just as ``out.append(x.to(dev))`` does; the per-item loop analysis
(``loop_transfers.item_transfer``) asks :func:`moved_argument` for the item such a call moves.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, is_true, keyword
from h2dlint.analysis.copies import non_blocking_to_unnamed_device
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target

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
    aside) is only that ``return``."""
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    if (
        len(body) == 2
        and isinstance(body[0], cst.SimpleStatementLine)
        and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
        return None
    statement = body[0].body[0] if len(body[0].body) == 1 else None
    if not isinstance(statement, cst.Return) or not isinstance(statement.value, cst.Call):
        return None
    call = statement.value
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
    params = function.params
    names = [p.name.value for p in (*params.posonly_params, *params.params)]
    return moved.value if moved.value in names else None


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
    return _argument_for(function, node, parameter, bound) if parameter is not None else None

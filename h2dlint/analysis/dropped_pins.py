"""A ``.pin_memory()`` whose result is thrown away (HTD102).

``Tensor.pin_memory()`` does not pin the tensor in place: it returns a pinned copy. Written as
a statement of its own (``state_dict[k].pin_memory()``, ``t.scale.pin_memory()``), it allocates
page-locked memory, copies into it and drops the copy: the tensor stays pageable, and the
non-blocking copy to the device that the code prepares for is staged by the driver (and
blocks, from a few MiB up). Only an object whose own ``pin_memory`` pins in place is written
that way: a class of the same module that defines one (a custom batch's ``pin_memory`` as
PyTorch's data loader documents it), ``self``, or a call asking for it (``inplace=True``).

A module's own ``pin_memory`` that only drops pinned copies itself (``for td in
self.tensordicts: td.pin_memory()`` then ``return self``: tensordict 0.4.0's lazy stack, fixed
in 0.5.0 to return the pinned result) is no such evidence: where every ``pin_memory`` the module
defines is made of dropped ``.pin_memory()`` calls, ``return self`` and loops or branches of
them, the drops are reported.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import visit_read_only

_OWN_PIN: SharedKey[bool] = SharedKey("module defines pin_memory")


def dropped_pin(context: FileContext, call: cst.Call) -> cst.BaseExpression | None:
    """The receiver of ``call`` when ``call`` is ``x.pin_memory()`` as a statement of its own,
    its pinned copy thrown away; else None (an assignment, an argument, a return, ``self``, an
    in-place request, or a module that defines a ``pin_memory`` of its own)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "pin_memory":
        return None
    ancestors: Sequence[cst.CSTNode] = context.ancestors
    parent = ancestors[-1] if ancestors else None
    if not isinstance(parent, cst.Expr) or parent.value is not call:
        return None
    receiver = func.value
    if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls", "super"):
        return None
    if (
        isinstance(receiver, cst.Call)
        and isinstance(receiver.func, cst.Name)
        and receiver.func.value == "super"
    ):
        return None
    if keyword(call, "inplace") is not None:
        return None
    if context.shared(_OWN_PIN, lambda: _defines_pin_memory(context.module)):
        return None
    return receiver


def _defines_pin_memory(module: cst.Module) -> bool:
    """Whether the module defines a function or method named ``pin_memory`` (a custom batch
    or container whose ``pin_memory`` may pin in place) that does more than drop pinned
    copies itself."""
    finder = _PinDefs()
    visit_read_only(module, finder)
    return finder.found


class _PinDefs(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node.name.value == "pin_memory" and not _drops_only(node.body):
            self.found = True
        return not self.found


def _drops_only(block: cst.BaseSuite) -> bool:
    """Whether every statement of ``block`` is a dropped ``x.pin_memory()`` (no ``inplace=``),
    ``return self``, a docstring or ``pass``, or a ``for``/``if`` made only of those."""
    if not isinstance(block, cst.IndentedBlock):
        return False
    for statement in block.body:
        if isinstance(statement, (cst.For, cst.If)):
            orelse = statement.orelse
            if not _drops_only(statement.body) or (
                orelse is not None and not _drops_only(orelse.body)
            ):
                return False
        elif not isinstance(statement, cst.SimpleStatementLine) or not all(
            _dropping(small) for small in statement.body
        ):
            return False
    return True


def _dropping(small: cst.BaseSmallStatement) -> bool:
    if isinstance(small, cst.Pass):
        return True
    if isinstance(small, cst.Return):
        return isinstance(small.value, cst.Name) and small.value.value == "self"
    if not isinstance(small, cst.Expr):
        return False
    value = small.value
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
        return True  # a docstring
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "pin_memory"
        and not (isinstance(value.func.value, cst.Name) and value.func.value.value == "self")
        and keyword(value, "inplace") is None
    )

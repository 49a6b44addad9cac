"""The functions a call may run, for the copies queued before an explicit wait: a function
nested in the waiting function (mmgp's ``gpu_load_blocks`` queues its blocks'
``non_blocking=True`` copies in a nested ``cpu_to_gpu(stream, params)`` and then calls
``torch.cuda.synchronize()``, once per block load), one defined at the top of the module, or a
method of the waiting method's class called on its ``self`` (``self._copy_blocks(...)``). An
imported function, another object's method, or a name the function rebinds is not followed.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from h2dlint.walk import visit_read_only


class _Defs(cst.CSTVisitor):
    """The functions defined in a block, at any depth of its statements but not inside another
    function, class or lambda; and every name the block binds otherwise."""

    def __init__(self) -> None:
        self.defs: dict[str, cst.FunctionDef] = {}
        self.rebound: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.defs[node.name.value] = node
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self.rebound.add(node.target.value)


def called_helpers(
    module: cst.Module,
    function: cst.FunctionDef,
    cls: cst.ClassDef | None = None,
    self_name: str | None = None,
) -> Mapping[str, cst.FunctionDef]:
    """The functions a call in ``function`` runs, by the callee's code: by bare name, those
    nested in it, then the module's top-level functions it does not shadow (a parameter or an
    assigned name of the same name is another value); ``self.m`` for the methods of ``cls``
    when ``function`` is its method with the instance ``self_name``."""
    inner = _Defs()
    visit_read_only(function.body, inner)
    params = function.params
    shadowed = inner.rebound | {
        p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    }
    found: dict[str, cst.FunctionDef] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value not in shadowed:
            found[statement.name.value] = statement
    found.update({n: d for n, d in inner.defs.items() if n not in inner.rebound})
    if cls is not None and self_name is not None and self_name not in inner.rebound:
        for member in cls.body.body:
            if isinstance(member, cst.FunctionDef):
                found[f"{self_name}.{member.name.value}"] = member
    return found


def callee_key(func: cst.BaseExpression) -> str | None:
    """The key :func:`called_helpers` gives the callee ``func``: ``name`` or ``self.name``."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        return f"{func.value.value}.{func.attr.value}"
    return None

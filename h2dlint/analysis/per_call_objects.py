"""Objects made anew on every call: a class of the module with no bases (a mask or a small
state holder, not an ``nn.Module``) constructed inside a function that does not run once (a
``forward``, a helper of one). Its ``__init__`` then runs on every call, not once per owning
object: what it builds on the host and moves is built and moved every call (session 31: the
Informer family's ``TriangularCausalMask(B, L, device=queries.device)`` and ``ProbMask(...)``,
made in each attention forward, copy a host ``torch.ones`` mask to the device; neuralforecast
1.7 and pytorch-forecasting build them with ``device=``)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.walk import visit_read_only

# Methods run on every call of the object that holds them.
PER_CALL_METHODS = frozenset({"forward", "__call__"})


class _Constructions(cst.CSTVisitor):
    """The innermost function around each call of a bare name in ``names`` (None for one at
    module level), by name."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.functions: list[cst.FunctionDef] = []
        self.found: dict[str, list[cst.FunctionDef | None]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in self.names:
            where = self.functions[-1] if self.functions else None
            self.found.setdefault(func.value, []).append(where)


Constructions = dict[str, list[cst.FunctionDef | None]]


def plain_constructions(module: cst.Module, classes: dict[str, cst.ClassDef]) -> Constructions:
    """Per class of ``classes`` (the module's top-level classes) without bases: the functions
    that construct it by its name (one walk of the module for all of them)."""
    plain = frozenset(n for n, c in classes.items() if not c.bases and not c.keywords)
    if not plain:
        return {}
    finder = _Constructions(plain)
    visit_read_only(module, finder)
    return finder.found


def made_per_call(
    cls: cst.ClassDef, constructions: Constructions, once: Callable[[cst.FunctionDef], bool]
) -> bool:
    """Whether ``cls`` (a top-level class without bases) is constructed by its name in a
    function that does not run once: a ``forward`` or ``__call__`` surely, any other function
    when ``once`` (the module's run-once judgement) says it is not."""
    if cls.bases or cls.keywords:
        return False
    return any(
        function is not None
        and function.name.value != "__init__"
        and (function.name.value in PER_CALL_METHODS or not once(function))
        for function in constructions.get(cls.name.value, ())
    )


__all__ = ["PER_CALL_METHODS", "made_per_call", "plain_constructions"]
